package node

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/console"
	"github.com/karst-broker/karst/internal/fetchsession"
	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/handler"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/loglevel"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/metrics/brokerstate"
	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/internal/share"
	"github.com/karst-broker/karst/internal/storage"
	"github.com/karst-broker/karst/internal/txn"
)

// checkpointInterval is log.flush.offset.checkpoint.interval.ms: how often
// the recovery points are recorded, which bounds how much of a log is
// validated after a crash (Kafka's default, a minute, without settings).
func checkpointInterval(settings *config.Broker) time.Duration {
	if settings != nil {
		if ms := settings.Int("log.flush.offset.checkpoint.interval.ms"); ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return time.Minute
}

// fetchSessionSlots is max.incremental.fetch.session.cache.slots' default.
const fetchSessionSlots = 1000

// brokerEpoch is the epoch of this node's broker registration, which the
// metadata store writes on start (see metadata.ActivationRecords).
const brokerEpoch = metadata.SingleNodeBrokerEpoch

// Config is everything a node needs to start.
type Config struct {
	NodeID    int32
	ClusterID string
	// DataDir is the first of log.dirs, which holds the metadata log.
	DataDir string
	// DataDirs are every directory of log.dirs (empty: DataDir alone).
	DataDirs []string
	// Listeners are bound in order; Advertised names the endpoints clients
	// are told about. An advertised port 0 means "the port the matching
	// listener bound".
	Listeners      []server.Listener
	Advertised     []handler.Endpoint
	MaxRequestSize int32
	// SendBufferBytes and ReceiveBufferBytes are socket.send.buffer.bytes
	// and socket.receive.buffer.bytes (-1: the OS default).
	SendBufferBytes, ReceiveBufferBytes int
	// IdleTimeout is connections.max.idle.ms.
	IdleTimeout time.Duration
	// ConnectionLimits are max.connections and the per-IP limits; nil
	// means none. AlterConfigs on BROKER changes them while running when
	// Settings is set.
	ConnectionLimits *server.ConnectionLimits

	AutoCreateTopics         bool  // auto.create.topics.enable
	DefaultPartitions        int32 // num.partitions
	DefaultReplicationFactor int16 // default.replication.factor
	// RetentionCheckInterval is log.retention.check.interval.ms.
	RetentionCheckInterval time.Duration
	// QueuedMaxRequestBytes is queued.max.request.bytes (<= 0: no limit).
	QueuedMaxRequestBytes int64
	// RecoveryThreads is num.recovery.threads.per.data.dir: partitions
	// opened or closed at once (0: Kafka's default, 2).
	RecoveryThreads int
	// Settings are the loaded broker settings, for config validation and
	// DescribeConfigs; nil accepts any topic config.
	Settings *config.Broker

	Logger *slog.Logger
	// LogLevels, if set, names the loggers and holds their levels, which
	// BROKER_LOGGER configs change at run time; nil derives them from
	// Logger.
	LogLevels *loglevel.Levels
}

// Node is a running broker.
type Node struct {
	srv *server.Server
	// dirLocks keep other processes off the log dirs until the logs are
	// closed.
	dirLocks []*storage.DirLock
	storage  *storage.Manager
	// logConfigs resolves every topic's log configuration, for the logs
	// and the handlers alike.
	logConfigs *config.LogConfigs
	// groups is the group coordinator once started, which a deletion of
	// __consumer_offsets unloads.
	groups atomic.Pointer[group.Coordinator]
	// txns is the transaction coordinator once started, which a deletion
	// of __transaction_state unloads.
	txns atomic.Pointer[txn.Coordinator]
	// shareState is the share coordinator once started.
	shareState  atomic.Pointer[share.Coordinator]
	metadataLog *klog.Log
	store       *metadata.Store
	stop        context.CancelFunc
	logger      *slog.Logger
	dataDir     string   // the first log dir, set once the dirs are known to be this node's
	dataDirs    []string // every log dir
	// dirIDs are the log dirs' directory.ids, by path.
	dirIDs  map[string]metadata.UUID
	nodeID  int32
	metrics *metrics.Metrics
	// observers serve /metrics (and pprof) when configured.
	observers []*metrics.Listener
	// console is the web console when karst.console.listener is set.
	console *console.Server
	// unwatch detaches the scrape-time gauges (lag, partitions) and the
	// log flush histogram.
	unwatch   func()
	clusterID string
	// connLimits follows dynamic changes of the connection quotas.
	connLimits *dynamicConnectionLimits
	// tls follows dynamic changes of SSL listeners' stores.
	tls *dynamicTLS

	// raft is the metadata log's raft side, which DescribeQuorum reads.
	raft *metadataLog
	// levels holds the loggers' levels (BROKER_LOGGER configs).
	levels *loglevel.Levels

	// dirFailures is where the logs report a failed log dir; failed is
	// closed, and failure set, once the broker stopped because of one.
	dirFailures *klog.LogDirFailureChannel
	failed      chan struct{}
	failure     error

	// lockFailedDirs are the log dirs whose .lock could not be opened at
	// start (see checkLogDirChildren).
	lockFailedDirs map[string]bool
	// shutdownOnce: Shutdown runs once (the failure handler and the
	// process may both call it); shutdownErr is its result.
	shutdownOnce sync.Once
	shutdownErr  error
}

// Start opens storage and metadata, binds the listeners and serves.
func Start(cfg Config) (n *Node, err error) {
	levels := logLevels(&cfg)
	logger := levels.Logger(loggerNode)
	if len(cfg.DataDirs) == 0 {
		cfg.DataDirs = []string{cfg.DataDir}
	}
	cfg.DataDir = cfg.DataDirs[0]
	node := &Node{logger: logger, levels: levels, connLimits: newDynamicConnectionLimits(&cfg, logger), tls: newDynamicTLS(&cfg, logger), failed: make(chan struct{}),
		dirFailures: klog.NewLogDirFailureChannel(len(cfg.DataDirs), logger)}
	n = node
	defer func() {
		if err != nil {
			node.closeStorage() // n is nil by now
			node.releaseLocks()
		}
	}()
	if err := n.openStorage(&cfg); err != nil {
		if failed := n.failedAtStart(); failed != nil {
			return nil, failed
		}
		return nil, err
	}
	if failed := n.failedAtStart(); failed != nil {
		return nil, failed
	}
	n.metrics = metrics.New()
	clientQuotas := newClientQuotas(cfg.Settings, n.store)
	n.metrics.Registry.MustRegister(clientQuotas.Collector())
	tokens := newStoreTokens(n.store, delegationTokenSettings(cfg.Settings))
	for _, l := range cfg.Listeners {
		if l.SASL != nil {
			l.SASL.Scram = storeCredentials{n.store}
			l.SASL.Tokens = tokens
		}
	}
	n.srv = server.New(server.Config{
		Listeners: cfg.Listeners, MaxRequestSize: cfg.MaxRequestSize, Logger: levels.Logger(loggerServer), Metrics: n.metrics,
		SendBufferBytes: cfg.SendBufferBytes, ReceiveBufferBytes: cfg.ReceiveBufferBytes, IdleTimeout: cfg.IdleTimeout,
		QueuedMaxRequestBytes: cfg.QueuedMaxRequestBytes, ConnectionLimits: n.connLimits.initial(cfg.ConnectionLimits),
		ClientQuotas: clientQuotas,
	})
	n.metrics.WatchRequestMemory(n.srv.RequestMemoryAvailable, n.srv.RequestMemoryUsed)
	var listenerNames []string
	for _, l := range cfg.Listeners {
		listenerNames = append(listenerNames, l.Name)
	}
	n.metrics.WatchAcceptors(listenerNames, n.srv.AcceptorBlocked)
	n.metrics.WatchConnectionCreation(listenerNames, n.srv.ConnectionCreationRates, n.srv.AcceptsThrottled)
	if err := n.srv.Listen(); err != nil {
		return nil, err
	}
	advertised, err := resolveAdvertised(cfg.Advertised, n.srv)
	if err != nil {
		n.srv.Shutdown(context.Background())
		return nil, err
	}
	eps := controllerEndpoints(cfg.Settings, cfg.NodeID, advertised)
	n.raft.controllerEndpoints.Store(&eps)
	offsetsTopic := group.NewOffsetsTopic(n.store, n.storage, group.ConfigFrom(cfg.Settings).OffsetsTopicPartitions, group.SegmentBytes(cfg.Settings))
	groups := group.New(group.ConfigFrom(cfg.Settings), group.Options{Store: offsetsTopic, Logger: levels.Logger(loggerGroup)})
	groups.SetConsumerConfig(group.ConsumerConfigFrom(cfg.Settings))
	groups.SetConsumerGroupConfigs(consumerGroupConfigs(n.store, cfg.Settings))
	groups.SetShareConfig(group.ShareConfigFrom(cfg.Settings))
	groups.SetShareGroupConfigs(shareGroupConfigs(n.store, cfg.Settings))
	n.groups.Store(groups)
	if skipped, err := groups.LoadAll(); err != nil {
		n.srv.Shutdown(context.Background())
		return nil, fmt.Errorf("loading %s: %w", metadata.ConsumerOffsetsTopic, err)
	} else if skipped > 0 {
		logger.Warn("skipped malformed records while loading group state", "records", skipped)
	}
	producerIDs := txn.NewProducerIDs(func() (int64, error) {
		return n.store.AllocateProducerIDs(cfg.NodeID, brokerEpoch)
	})
	txns, err := n.startTxnCoordinator(cfg.Settings, producerIDs, groups)
	if err != nil {
		n.srv.Shutdown(context.Background())
		return nil, err
	}
	shareState, shares, err := n.startShareCoordinator(cfg.Settings)
	if err != nil {
		n.srv.Shutdown(context.Background())
		return nil, err
	}
	n.shareState.Store(shareState)
	groups.SetShareRelease(shares.ReleaseMember)
	groups.SetShareInitializer(shareState.InitializeGroup)
	clientTelemetry := metrics.NewClientTelemetry()
	clientTelemetry.Register(n.metrics)
	broker := handler.NewBroker(handler.Options{
		ClusterID:        cfg.ClusterID,
		NodeID:           cfg.NodeID,
		Advertised:       advertised,
		Logger:           levels.Logger(loggerHandler),
		LogLevels:        levels,
		Metadata:         n.store,
		Storage:          n.storage,
		AutoCreateTopics: cfg.AutoCreateTopics,
		FetchSessions:    fetchsession.NewCache(fetchSessionSlots),
		ProducerIDs:      producerIDs,
		Txns:             txns,
		TxnVerifier:      txns,
		LogDir:           cfg.DataDir,
		Groups:           groups,
		Shares:           shares,
		ShareState:       shareState,
		Settings:         cfg.Settings,
		LogConfigs:       n.logConfigs,
		Metrics:          n.metrics,
		ClientInstances:  metrics.NewClientInstances(nil),
		ClientTelemetry:  clientTelemetry,
		Quorum:           n.raft,
		DelegationTokens: delegationTokenSettings(cfg.Settings),
		Quotas:           clientQuotas,
	})
	ctx, cancel := context.WithCancel(context.Background())
	n.stop = cancel
	interval := cfg.RetentionCheckInterval
	if interval <= 0 {
		interval = 5 * time.Minute
	}
	go n.storage.RunRetention(ctx, interval)
	var cleaner brokerstate.Cleaner
	if cfg.Settings != nil {
		cc := storage.CleanerConfigFrom(cfg.Settings)
		c := n.storage.NewCleaner(cc)
		if cc.Enable {
			cleaner = c
		}
		go c.Run(ctx)
	}
	go n.writeCheckpoints(ctx, checkpointInterval(cfg.Settings))
	if cfg.Settings != nil {
		go removeExpiredDelegationTokens(ctx, n.store, time.Duration(cfg.Settings.Long("delegation.token.expiry.check.interval.ms"))*time.Millisecond, logger)
	}
	go n.watchLogDirFailures(ctx, n.dirFailures)
	go n.recordDirectories(ctx)
	if err := n.listenObservers(cfg.Settings); err != nil {
		n.srv.Shutdown(context.Background())
		return nil, err
	}
	n.unwatch = brokerstate.Register(n.metrics, brokerstate.Sources{NodeID: cfg.NodeID, Groups: groups, Partitions: n.storage, Metadata: n.store,
		Cleaner: cleaner})
	n.tls.apply() // stores set by AlterConfigs before this start
	n.srv.Serve(broker)
	if err := n.startConsole(cfg.Settings, cfg.Listeners); err != nil {
		n.shutdown(context.Background())
		return nil, err
	}
	go n.connLimits.run(ctx, n.srv)
	go n.tls.run(ctx)
	return n, nil
}

// openStorage prepares the log dir (meta.properties), opens the metadata
// log, replays it and opens every partition it names.
func (n *Node) openStorage(cfg *Config) error {
	n.dataDir = cfg.DataDir
	n.dataDirs = cfg.DataDirs
	if err := n.prepareLogDirs(cfg.DataDirs); err != nil {
		return err
	}
	metas, err := ensureMetaProperties(cfg, n.dirFailures)
	if err != nil {
		return err
	}
	if err := n.enoughLogDirs(cfg.DataDirs); err != nil {
		return err
	}
	if err := n.checkLogDirChildren(cfg.DataDirs); err != nil {
		return err
	}
	cfg.ClusterID = metas[0].ClusterID
	n.clusterID = metas[0].ClusterID
	n.nodeID = cfg.NodeID
	n.dirIDs = map[string]metadata.UUID{}
	var dirIDs []metadata.UUID
	for i, dir := range cfg.DataDirs {
		id, _ := metadata.ParseUUID(metas[i].DirectoryID)
		n.dirIDs[filepath.Clean(dir)] = id
		dirIDs = append(dirIDs, id)
	}
	onlineIDs := n.onlineDirIDs()
	// One dir: partitions are recorded in it from their creation. Several:
	// created UNASSIGNED and assigned once placed, as Kafka's controller
	// does (see recordDirectories).
	directoryID := dirIDs[0]
	if len(dirIDs) > 1 {
		directoryID = metadata.UUID{}
	}
	clean := make([]bool, len(cfg.DataDirs))
	for i, dir := range cfg.DataDirs {
		if n.dirFailures.IsOffline(filepath.Clean(dir)) {
			continue
		}
		if clean[i], err = consumeCleanShutdownMarker(dir, n.logger); err != nil {
			return fmt.Errorf("log.dirs %s: %w", dir, err)
		}
	}

	static := cfg.Settings
	if static == nil {
		var err error
		if static, _, err = config.FromProperties(map[string]string{"node.id": strconv.Itoa(int(cfg.NodeID))}); err != nil {
			return err
		}
	}
	n.logConfigs = config.NewLogConfigs(static)
	// applying is the image being applied to the logs. OnCommit also runs
	// inside OpenStore (for the activation records), before n.store is
	// set, and the logs it opens must get their topics' configs.
	var applying atomic.Pointer[metadata.Image]
	configFor := func(topic string) klog.Config {
		var dyn config.DynamicConfigs
		if img := applying.Load(); img != nil {
			dyn = img
		}
		c := storage.LogConfig(n.logConfigs.Broker(dyn), n.logConfigs.Topic(dyn, topic))
		c.DirFailures = n.dirFailures
		return c
	}
	if n.storage, err = storage.OpenDirs(cfg.DataDirs, configFor, n.dirFailures, n.levels.Logger(loggerStorage)); err != nil {
		return err
	}
	for i, dir := range cfg.DataDirs {
		n.storage.SetCleanShutdown(dir, clean[i])
		defer n.storage.SetCleanShutdown(dir, false)
	}
	if cfg.RecoveryThreads > 0 {
		n.storage.SetRecoveryThreads(cfg.RecoveryThreads)
	}
	metaCfg := klog.DefaultConfig()
	metaCfg.RetentionTime = -1
	metaCfg.RetentionBytes = -1
	metaCfg.DirFailures = n.dirFailures
	if n.metadataLog, err = n.storage.OpenLog(metadataLogPartition, metaCfg); err != nil {
		return fmt.Errorf("opening the metadata log: %w", err)
	}
	if _, err := klog.ReadPartitionMetadata(n.metadataLog.Dir()); errors.Is(err, os.ErrNotExist) {
		if err := klog.WritePartitionMetadata(n.metadataLog.Dir(), klog.TopicID(metadata.MetadataTopicID)); err != nil {
			return err
		}
	}
	node := metadata.Node{
		ID:                       cfg.NodeID,
		DirectoryID:              directoryID,
		LogDirs:                  onlineIDs,
		DefaultPartitions:        max(cfg.DefaultPartitions, 1),
		DefaultReplicationFactor: max(cfg.DefaultReplicationFactor, 1),
	}
	if cfg.Settings != nil {
		node.Configs = configSchema{cfg.Settings}
	}
	n.raft = &metadataLog{log: n.metadataLog, now: time.Now, directoryID: directoryID, nodeID: cfg.NodeID}
	n.store, err = metadata.OpenStore(n.raft, metadata.StoreOptions{
		Node: node,
		OnCommit: func(prev, next *metadata.Image, records []metadata.Record) {
			applying.Store(next)
			forgetRemovedTopics(prev, records, n.logConfigs.Forget, n.metrics.ForgetTopic)
			n.connLimits.committed(next)
			n.tls.committed(next)
			if err := n.storage.Reconcile(partitionSpecs(next, cfg.NodeID)); err != nil {
				n.logger.Error("applying metadata to the partition logs", "err", err)
			}
			if groups := n.groups.Load(); groups != nil && topicRemoved(prev, next, metadata.ConsumerOffsetsTopic) {
				groups.Unload()
			}
			if txns := n.txns.Load(); txns != nil && topicRemoved(prev, next, metadata.TransactionStateTopic) {
				go txns.Unload() // it waits for its shards' locks, whose holders may be waiting on this commit
			}
		},
	})
	if err != nil {
		return fmt.Errorf("replaying the metadata log: %w", err)
	}
	applying.Store(n.store.Image())
	n.connLimits.committed(n.store.Image())
	n.tls.committed(n.store.Image())
	return n.storage.Reconcile(partitionSpecs(n.store.Image(), cfg.NodeID))
}

// topicRemoved reports whether a commit deleted the topic name (a topic
// of the same name created in the same commit has another id).
// forgetRemovedTopics tells each forget (the resolved log configs, the
// per-topic metrics) the names of the topics the records delete.
func forgetRemovedTopics(prev *metadata.Image, records []metadata.Record, forget ...func(topic string)) {
	if prev == nil {
		return
	}
	for _, r := range records {
		if rm, ok := r.(*metadata.RemoveTopicRecord); ok {
			if t, ok := prev.TopicByID(rm.TopicID); ok {
				for _, f := range forget {
					f(t.Name)
				}
			}
		}
	}
}

func topicRemoved(prev, next *metadata.Image, name string) bool {
	if prev == nil {
		return false
	}
	before, ok := prev.Topic(name)
	if !ok {
		return false
	}
	after, ok := next.Topic(name)
	return !ok || after.ID != before.ID
}

// partitionSpecs lists the partitions of img that this node hosts.
func partitionSpecs(img *metadata.Image, nodeID int32) []storage.Spec {
	var specs []storage.Spec
	for _, t := range img.Topics() {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if r == nodeID {
					specs = append(specs, storage.Spec{
						TopicPartition: klog.TopicPartition{Topic: t.Name, Partition: p.ID},
						TopicID:        klog.TopicID(t.ID),
					})
					break
				}
			}
		}
	}
	return specs
}

// newClusterID makes a Kafka-style cluster id: a random Uuid in base64.
func newClusterID() string { return metadata.RandomUUID().String() }

func newDirectoryID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// resolveAdvertised fills in ports the kernel chose for port-0 listeners,
// and publishes this machine's host name, as Kafka does, for a listener
// bound to all interfaces without an advertised host, so clients on other
// machines can follow it (127.0.0.1 when the name does not resolve).
func resolveAdvertised(eps []handler.Endpoint, srv *server.Server) ([]handler.Endpoint, error) {
	out := make([]handler.Endpoint, len(eps))
	for i, ep := range eps {
		if ep.Host == "" || ep.Host == "0.0.0.0" || ep.Host == "::" {
			ep.Host = config.AdvertisedHost()
		}
		if ep.Port == 0 {
			addr := srv.Addr(ep.ListenerName)
			if addr == nil {
				return nil, fmt.Errorf("advertised listener %s has no matching listener", ep.ListenerName)
			}
			_, port, err := net.SplitHostPort(addr.String())
			if err != nil {
				return nil, err
			}
			p, err := strconv.Atoi(port)
			if err != nil {
				return nil, err
			}
			ep.Port = int32(p)
		}
		out[i] = ep
	}
	return out, nil
}

// ClusterID is the cluster id in force: from meta.properties, or the one
// generated when the log dir was formatted.
func (n *Node) ClusterID() string { return n.clusterID }

// Addr returns the bound address of the named listener.
func (n *Node) Addr(listener string) net.Addr { return n.srv.Addr(listener) }

// Stats returns the server's counters.
func (n *Node) Stats() *server.Stats { return n.srv.Stats() }

// Shutdown stops accepting, finishes in-flight requests, then flushes and
// closes every log and writes the checkpoint files; after a log dir
// failure the clean-shutdown marker is not written. Later calls return the
// first one's result.
func (n *Node) Shutdown(ctx context.Context) error {
	n.shutdownOnce.Do(func() { n.shutdownErr = n.shutdown(ctx) })
	return n.shutdownErr
}

func (n *Node) shutdown(ctx context.Context) error {
	if n.console != nil {
		n.console.Close(ctx)
	}
	err := n.srv.Shutdown(ctx)
	for _, o := range n.observers {
		o.Close(ctx)
	}
	if n.unwatch != nil {
		n.unwatch()
	}
	if n.stop != nil {
		n.stop()
	}
	if c := n.shareState.Load(); c != nil {
		c.Close()
	}
	if txns := n.txns.Load(); txns != nil {
		txns.Close() // its timers stop before the logs close
	}
	closeErr := n.closeStorage()
	if closeErr == nil {
		for _, dir := range n.dataDirs {
			if !n.dirFailures.IsOffline(filepath.Clean(dir)) {
				closeErr = errors.Join(closeErr, markCleanShutdown(dir))
			}
		}
	}
	return errors.Join(err, closeErr, n.releaseLocks())
}

func (n *Node) releaseLocks() error {
	var errs []error
	for _, l := range n.dirLocks {
		errs = append(errs, l.Release())
	}
	return errors.Join(errs...)
}

func (n *Node) closeStorage() error {
	var errs []error
	if n.storage != nil {
		if n.metadataLog != nil {
			errs = append(errs, n.storage.Close(n.metadataLog))
		} else {
			errs = append(errs, n.storage.Close())
		}
	}
	if n.metadataLog != nil {
		errs = append(errs, n.metadataLog.Close())
	}
	return errors.Join(errs...)
}

// writeCheckpoints records every log's recovery point and log start offset
// every interval until ctx ends.
func (n *Node) writeCheckpoints(ctx context.Context, interval time.Duration) {
	every(ctx, interval, func() {
		// A dir whose checkpoints cannot be written is reported failed by
		// WriteCheckpoints, as by Kafka's CheckpointFileWithFailureHandler.
		_ = n.storage.WriteCheckpoints(n.metadataLog)
	})
}

// every runs task each interval until ctx ends.
func every(ctx context.Context, interval time.Duration, task func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			task()
		}
	}
}

// listenObservers starts karst.metrics.listener (Prometheus at /metrics)
// and karst.pprof.listener (the same, plus Go's pprof), when set.
func (n *Node) listenObservers(settings *config.Broker) error {
	if settings == nil {
		return nil
	}
	for _, o := range []struct {
		key   string
		pprof bool
	}{{"karst.metrics.listener", false}, {"karst.pprof.listener", true}} {
		addr := settings.String(o.key)
		if addr == "" {
			continue
		}
		l, err := metrics.Listen(addr, n.metrics, o.pprof)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.key, addr, err)
		}
		n.observers = append(n.observers, l)
		n.logger.Info("serving metrics", "listener", o.key, "addr", l.Addr().String(), "pprof", o.pprof)
	}
	return nil
}

// MetricsAddr is the bound address of karst.metrics.listener, or nil.
func (n *Node) MetricsAddr() net.Addr {
	if len(n.observers) == 0 {
		return nil
	}
	return n.observers[0].Addr()
}

// recordDirectories keeps each partition's directory in the metadata
// (PartitionRecord/PartitionChangeRecord Directories) the log dir that
// holds it, as a Kafka broker reports placements and moves to its
// controller (AssignReplicasToDirs) and the controller records them.
func (n *Node) recordDirectories(ctx context.Context) {
	for {
		recs := n.store.Image().DirectoryChanges(n.nodeID, func(topic string, partition int32) (metadata.UUID, bool) {
			dir, ok := n.storage.DirectoryOf(topic, partition)
			if !ok {
				return metadata.UUID{}, false
			}
			id, ok := n.dirIDs[dir]
			return id, ok
		})
		if len(recs) > 0 {
			if err := n.store.Commit(recs); err != nil {
				n.logger.Warn("recording the partitions' log dirs in the metadata", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-n.storage.Placed():
		}
	}
}
