package node

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// prepareLogDirs creates and locks each log dir, as Kafka's LogManager
// does at start (createAndValidateLogDirs, lockLogDirs): a dir that cannot
// be created, is not a readable directory, or whose .lock cannot be
// opened is reported failed and left out, and the broker goes on with the
// others. A dir another process holds stops the start, as in Kafka.
func (n *Node) prepareLogDirs(dirs []string) error {
	n.lockFailedDirs = map[string]bool{}
	for _, dir := range dirs {
		if err := validateLogDir(dir); err != nil {
			n.dirFailures.MaybeAddOfflineLogDir(filepath.Clean(dir), "Failed to create or validate data directory "+absPath(dir), err)
			continue
		}
		// Locked before anything in the dir is read or written: another
		// broker's clean-shutdown marker or meta.properties is not ours.
		lock, err := storage.LockLogDir(dir)
		switch {
		case errors.Is(err, storage.ErrLogDirLocked):
			return err
		case err != nil:
			n.dirFailures.MaybeAddOfflineLogDir(filepath.Clean(dir), "Disk error while locking directory "+dir, err)
			n.lockFailedDirs[filepath.Clean(dir)] = true
			continue
		}
		n.dirLocks = append(n.dirLocks, lock)
	}
	return nil
}

// checkLogDirChildren applies the rule Kafka's LogManager.loadLogs applies
// to every directory inside a log dir it loads: its name must be a
// topic-partition (or one of Kafka's "-delete", "-future" and "-stray"
// names), or the start fails with "Error starting LogManager". Kafka
// loads the dirs whose lock failed too (they are reported failed but
// still in its live list while the logs load), so a .lock that is itself
// a directory stops Kafka 4.4.0 (measured: status 1, "Found directory
// …/.lock, '.lock' is not in the form of topic-partition …"); a dir whose
// meta.properties failed is left out before, as there.
func (n *Node) checkLogDirChildren(dirs []string) error {
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		if n.dirFailures.IsOffline(dir) && !n.lockFailedDirs[dir] {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // reported when the dir is opened
		}
		for _, e := range entries {
			if !e.IsDir() || klog.IsKafkaLogDirName(e.Name()) {
				continue
			}
			msg := fmt.Sprintf("Found directory %s, '%s' is not in the form of topic-partition or topic-partition.uniqueId-delete (if marked for deletion).\n"+
				"Kafka's log directories (and children) should only contain Kafka topic data.", absPath(filepath.Join(dir, e.Name())), e.Name())
			n.logger.Error("Encountered fatal fault: Error starting LogManager", "err", msg)
			return errors.New(msg)
		}
	}
	return nil
}

// validateLogDir creates dir if missing and checks it is a directory this
// process can list.
func validateLogDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s is not a readable log directory: %w", absPath(dir), err)
	}
	return nil
}

// enoughLogDirs applies Kafka's rules for the dirs that failed before any
// log was opened: the broker cannot start when the metadata log dir (the
// first of log.dirs) failed, nor when none is left.
func (n *Node) enoughLogDirs(dirs []string) error {
	metadataDir := filepath.Clean(dirs[0])
	if n.dirFailures.IsOffline(metadataDir) {
		msg := fmt.Sprintf("Shutdown broker because the metadata log dir %s has failed", absPath(metadataDir))
		n.logger.Error(msg)
		return errors.New(msg)
	}
	return nil
}

// ensureMetaProperties reads the meta.properties of every log dir still
// online, or writes it for a new one (with its own directory.id, as Kafka
// formats each dir), and checks they all belong to this node and one
// cluster. A file that cannot be read or parsed fails its dir, as Kafka's
// MetaPropertiesEnsemble.Loader counts it among the error log dirs, and so
// does one that cannot be written (Kafka never formats a dir at start;
// Karst does, and a dir it cannot format is one it cannot use); for the
// metadata log dir either stops the start, with Kafka's message.
func ensureMetaProperties(cfg *Config, failures *klog.LogDirFailureChannel) ([]klog.MetaProperties, error) {
	metas := make([]klog.MetaProperties, len(cfg.DataDirs))
	var missing []int
	clusterID := cfg.ClusterID
	for i, dir := range cfg.DataDirs {
		if failures.IsOffline(filepath.Clean(dir)) {
			continue
		}
		mp, err := klog.ReadMetaProperties(dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			missing = append(missing, i)
			continue
		case err != nil && i == 0:
			msg := "Encountered I/O error in metadata log directory " + dir + ". Cannot continue."
			return nil, fmt.Errorf("%s: %w", msg, err)
		case err != nil:
			failures.MaybeAddOfflineLogDir(filepath.Clean(dir), "Error while reading meta.properties file "+absPath(filepath.Join(dir, klog.MetaPropertiesFile)), err)
			continue
		}
		if mp.NodeID != cfg.NodeID {
			return nil, fmt.Errorf("log dir %s belongs to node.id %d, not %d", dir, mp.NodeID, cfg.NodeID)
		}
		if clusterID != "" && mp.ClusterID != clusterID {
			return nil, fmt.Errorf("log dir %s belongs to cluster %s, not %s", dir, mp.ClusterID, clusterID)
		}
		clusterID = mp.ClusterID
		metas[i] = mp
	}
	if clusterID == "" {
		clusterID = newClusterID()
	}
	for _, i := range missing {
		mp := klog.MetaProperties{Version: 1, ClusterID: clusterID, NodeID: cfg.NodeID, DirectoryID: newDirectoryID()}
		if err := klog.WriteMetaProperties(cfg.DataDirs[i], mp); err != nil {
			failures.MaybeAddOfflineLogDir(filepath.Clean(cfg.DataDirs[i]), "Error while writing meta.properties to "+cfg.DataDirs[i], err)
			continue
		}
		metas[i] = mp
	}
	return metas, nil
}

// onlineDirIDs are the directory.ids of the log dirs not failed, in
// log.dirs order: what the broker registers, as Kafka's broker registers
// LogManager.directoryIdsSet and reports the others offline.
func (n *Node) onlineDirIDs() []metadata.UUID {
	var out []metadata.UUID
	for _, dir := range n.dataDirs {
		id, ok := n.dirIDs[filepath.Clean(dir)]
		if ok && id != (metadata.UUID{}) && !n.dirFailures.IsOffline(filepath.Clean(dir)) {
			out = append(out, id)
		}
	}
	return out
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
