package metadata

import (
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/javahash"
)

// UpgradeType is how an UpdateFeatures entry may move a level
// (FeatureUpdate.UpgradeType in Kafka).
type UpgradeType int8

// The upgrade types of UpdateFeatures v1+; any other code is unknown.
const (
	UpgradeOnly     UpgradeType = 1
	SafeDowngrade   UpgradeType = 2
	UnsafeDowngrade UpgradeType = 3
)

// FeatureUpdate is one entry of an UpdateFeatures request.
type FeatureUpdate struct {
	Name  string
	Level int16
	Type  UpgradeType
}

// metadataChangedAt are the metadata.version levels whose records differ
// from the level below (MetadataVersion.didMetadataChange in Kafka 4.4.0):
// a downgrade across one of them could lose metadata and is refused.
var metadataChangedAt = map[int16]bool{7: true, 8: true, 11: true, 13: true, 14: true, 15: true, 17: true, 23: true, 30: true, 32: true, 33: true}

// UpdateFeatures validates feature level changes as Kafka's
// FeatureControlManager does and returns the FeatureLevelRecords that make
// them, plus the cluster min.insync.replicas when eligible leader replicas
// get enabled. It stops at the first refused entry, taking the entries in
// the order Kafka's controller does (a Java HashMap's), so the error named
// is the one Kafka names. The refusal is INVALID_UPDATE_VERSION with
// Kafka's message. kraftVersion is the quorum's kraft.version, which the
// image does not hold.
func (img *Image) UpdateFeatures(node Node, kraftVersion int16, updates []FeatureUpdate) ([]Record, *Error) {
	proposed := map[string]int16{FeatureKRaftVersion: kraftVersion}
	for name, level := range img.features {
		proposed[name] = level
	}
	for _, u := range updates {
		proposed[u.Name] = u.Level
	}
	var out []Record
	for _, u := range javaHashMapOrder(updates) {
		current := img.features[u.Name]
		if u.Name == FeatureKRaftVersion {
			current = kraftVersion
		}
		if err := checkFeatureUpdate(node, u, current, proposed); err != nil {
			return nil, err
		}
		if u.Name == FeatureKRaftVersion {
			continue // the raft log's own control records carry it (Store.UpdateFeatures)
		}
		out = append(out, &FeatureLevelRecord{Name: u.Name, FeatureLevel: u.Level})
		if u.Name == FeatureELR && u.Level >= 1 && img.features[FeatureELR] < 1 {
			if c := img.elrConfigRecord(); c != nil {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

func checkFeatureUpdate(node Node, u FeatureUpdate, current int16, proposed map[string]int16) *Error {
	invalid := func(reason string) *Error {
		return opError(kerr.InvalidUpdateVersion, fmt.Sprintf("Invalid update version %d for feature %s. %s", u.Level, u.Name, reason))
	}
	if u.Type < UpgradeOnly || u.Type > UnsafeDowngrade {
		return invalid("The controller does not support the given upgrade type.")
	}
	if u.Level < 0 {
		return invalid("A feature version cannot be less than 0.")
	}
	supported, ok := LookupSupportedFeature(u.Name)
	if !ok || u.Level < supported.MinLevel || u.Level > supported.MaxLevel {
		what := "Local controller " + strconv.Itoa(int(node.ID))
		if !ok || supported.MaxLevel == 0 {
			if u.Level != 0 {
				return invalid(what + " does not support this feature.")
			}
		} else {
			return invalid(fmt.Sprintf("%s only supports versions %d-%d", what, supported.MinLevel, supported.MaxLevel))
		}
	}
	switch {
	case u.Level < current && u.Type == UpgradeOnly:
		return invalid("Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.")
	case u.Level > current && u.Type != UpgradeOnly:
		return invalid("Can't downgrade to a newer version.")
	}
	if u.Name == FeatureMetadataVersion {
		return checkMetadataVersionChange(current, u)
	}
	if u.Name == FeatureKRaftVersion && u.Level < current {
		// Kafka 4.4 turns a dynamic quorum back into a static one never.
		return invalid("Can't downgrade the version of this feature.")
	}
	if u.Level >= 1 {
		if mv := proposed[FeatureMetadataVersion]; mv < MinMetadataVersion {
			return invalid(fmt.Sprintf("%s could not be set to %d because it depends on metadata.version=4 (3.3-IV0)", u.Name, u.Level))
		}
	}
	for level, needMV := range featureDependencies[u.Name] {
		if u.Level >= level && proposed[FeatureMetadataVersion] < needMV {
			return invalid(fmt.Sprintf("%s could not be set to %d because it depends on %s level %d", u.Name, u.Level, FeatureMetadataVersion, needMV))
		}
	}
	return nil
}

// checkMetadataVersionChange is FeatureControlManager.updateMetadataVersion:
// a downgrade is allowed only across levels that did not change the
// metadata records, and never as an unsafe (lossy) one.
func checkMetadataVersionChange(current int16, u FeatureUpdate) *Error {
	if u.Level >= current {
		return nil
	}
	changed := false
	for level := current; level > u.Level; level-- {
		changed = changed || metadataChangedAt[level]
	}
	if !changed {
		return nil
	}
	prefix := fmt.Sprintf("Unsupported metadata.version downgrade from %d to %d. ", current, u.Level)
	if u.Type == UnsafeDowngrade {
		return opError(kerr.InvalidUpdateVersion, prefix+"Unsafe metadata downgrade is not supported in this version.")
	}
	return opError(kerr.InvalidUpdateVersion, prefix+"Refusing to perform the requested downgrade because it might delete metadata information.")
}

// javaHashMapOrder returns updates in the iteration order of the
// java.util.HashMap Kafka's controller puts them in (keyed by name, a later
// entry for the same name replacing the earlier one): by bucket of the
// spread String.hashCode, insertion order within a bucket, with the table
// doubling from 16 buckets as entries pass 3/4 of it.
func javaHashMapOrder(updates []FeatureUpdate) []FeatureUpdate {
	var unique []FeatureUpdate
	index := map[string]int{}
	for _, u := range updates {
		if i, ok := index[u.Name]; ok {
			unique[i] = u
			continue
		}
		index[u.Name] = len(unique)
		unique = append(unique, u)
	}
	javahash.SortHashMapOrder(unique, func(u FeatureUpdate) string { return u.Name }, javahash.HashMapTable(len(unique)))
	return unique
}

// UpdateFeatures applies feature level changes (UpdateFeatures); with
// validateOnly it only checks them.
func (s *Store) UpdateFeatures(updates []FeatureUpdate, validateOnly bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	kraftVersion := s.KRaftVersion()
	recs, err := s.cur.Load().UpdateFeatures(s.opts.Node, kraftVersion, updates)
	if err != nil {
		return err
	}
	if validateOnly {
		return nil
	}
	// As Kafka's QuorumController: a higher kraft.version goes to the raft
	// client first (KIP-853; it turns a static quorum dynamic), then the
	// feature levels are written.
	for _, u := range updates {
		if u.Name != FeatureKRaftVersion || u.Level <= kraftVersion {
			continue
		}
		l, ok := s.log.(KRaftVersionLog)
		if !ok {
			return opError(kerr.InvalidUpdateVersion, "The metadata log cannot change kraft.version.")
		}
		if err := l.UpgradeKRaftVersion(u.Level); err != nil {
			return err
		}
		kraftVersion = u.Level
	}
	return s.commitLocked(recs)
}
