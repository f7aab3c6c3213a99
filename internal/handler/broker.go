package handler

import (
	"context"
	"log/slog"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/fetchsession"
	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/loglevel"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/quota"
	"github.com/karst-broker/karst/internal/share"
	"github.com/karst-broker/karst/internal/storage"
	"github.com/karst-broker/karst/internal/txn"
)

// Endpoint is an advertised listener: where clients should connect.
type Endpoint struct {
	ListenerName     string
	Host             string
	Port             int32
	SecurityProtocol string
}

// Options are the broker facts handlers report to clients.
type Options struct {
	ClusterID string
	NodeID    int32
	Rack      *string
	// Advertised lists the endpoints clients are told about, per listener.
	Advertised []Endpoint
	Logger     *slog.Logger

	// Metadata is the cluster metadata (topics, configs, features).
	Metadata *metadata.Store
	// Storage holds the partition logs.
	Storage *storage.Manager
	// AutoCreateTopics is auto.create.topics.enable.
	AutoCreateTopics bool
	// FetchSessions holds the incremental fetch sessions (KIP-227).
	FetchSessions *fetchsession.Cache
	// ProducerIDs hands out producer ids.
	ProducerIDs *txn.ProducerIDs
	// Metrics, if set, counts bytes and records in and out per topic.
	Metrics *metrics.Metrics
	// Settings are the broker's static configuration (server.properties
	// and overrides), for DescribeConfigs; nil means Kafka's defaults.
	Settings *config.Broker
	// LogConfigs resolve topics' log configurations, shared with the logs
	// (nil: the handler resolves over Settings itself).
	LogConfigs *config.LogConfigs
	// LogDir is the data directory, as DescribeLogDirs reports it.
	LogDir string
	// Groups is the group coordinator; nil answers group APIs with
	// COORDINATOR_NOT_AVAILABLE.
	Groups *group.Coordinator
	// Shares are the share-partitions and share sessions of ShareFetch
	// and ShareAcknowledge; nil answers them UNSUPPORTED_VERSION.
	Shares *share.Manager
	// ShareState is the share coordinator over __share_group_state that
	// Shares persist through, for the share-state APIs (83-87); nil
	// answers them COORDINATOR_NOT_AVAILABLE.
	ShareState *share.Coordinator
	// Txns is the transaction coordinator; nil answers transactional
	// APIs with COORDINATOR_NOT_AVAILABLE.
	Txns *txn.Coordinator
	// TxnVerifier verifies a transaction's partitions before its first
	// write to each (KIP-890); nil asks Txns in-process.
	TxnVerifier txn.Verifier
	// ClientInstances and ClientTelemetry are the KIP-714 telemetry
	// clients and the export of what they push; nil makes private ones
	// (the export then reaches no registry).
	ClientInstances *metrics.ClientInstances
	ClientTelemetry *metrics.ClientTelemetry
	// Quorum is the node's metadata quorum, for DescribeQuorum; nil
	// answers NOT_LEADER_OR_FOLLOWER.
	Quorum Quorum
	// LogLevels are the broker's loggers, which BROKER_LOGGER configs
	// describe and change; nil makes them from Logger.
	LogLevels *loglevel.Levels
	// DelegationTokens are the delegation.token.* settings; nil leaves
	// delegation tokens disabled.
	DelegationTokens *metadata.DelegationTokenSettings
	// Quotas are the client quotas Fetch and the topic mutations apply
	// (quotas.go); nil enforces none.
	Quotas *quota.Manager
}

// Broker is what every handler reaches the rest of Karst through.
type Broker struct {
	opts          Options
	logger        *slog.Logger
	authorization authorization
}

// NewBroker returns the handler layer over the given options.
func NewBroker(opts Options) *Broker {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if opts.FetchSessions == nil {
		opts.FetchSessions = fetchsession.NewCache(0)
	}
	if opts.ClientInstances == nil {
		opts.ClientInstances = metrics.NewClientInstances(nil)
	}
	if opts.ClientTelemetry == nil {
		opts.ClientTelemetry = metrics.NewClientTelemetry()
	}
	if opts.LogLevels == nil {
		opts.LogLevels = loglevel.New(logger.Handler(), loglevel.LowestEnabled(logger.Handler()))
	}
	b := &Broker{opts: opts, logger: logger}
	b.authorization.audit = newBrokerAuditor(opts)
	if b.opts.LogConfigs == nil {
		b.opts.LogConfigs = config.NewLogConfigs(b.staticBrokerConfig())
	}
	return b
}

// Handle runs api's handler for r.
func (b *Broker) Handle(ctx context.Context, api *API, r *Request) Outcome {
	v := b.authorize(api, r)
	if v.closeNow {
		return closeConnection()
	}
	if v.refusal != nil {
		return Ready(v.refusal)
	}
	return v.finish(api.handle(b, ctx, r))
}

// endpointFor returns the advertised endpoint of the listener a request
// arrived on, as Kafka answers Metadata per listener.
func (b *Broker) endpointFor(listener string) (Endpoint, bool) {
	for _, e := range b.opts.Advertised {
		if e.ListenerName == listener {
			return e, true
		}
	}
	if len(b.opts.Advertised) > 0 {
		return b.opts.Advertised[0], true
	}
	return Endpoint{}, false
}
