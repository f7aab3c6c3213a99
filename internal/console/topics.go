package console

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

type topicRow struct {
	Name              string
	Internal          bool
	Partitions        int
	ReplicationFactor int
	Size              int64
	Records           int64 // end minus start offsets, summed
}

func (s *Server) topics(ctx context.Context, k *kafka, _ *http.Request, p *page) error {
	p.Title = "Topics"
	details, err := k.admin.ListTopicsWithInternal(ctx)
	if err != nil {
		return err
	}
	sizes, starts, ends, sizesErr, err := s.partitionFigures(ctx, k, details.Names()...)
	if err != nil {
		return err
	}
	d := &topicsData{SizesErr: errText(sizesErr)}
	p.Data = d
	for _, t := range details.Sorted() {
		row := topicRow{Name: t.Topic, Internal: t.IsInternal, Partitions: len(t.Partitions), ReplicationFactor: t.Partitions.NumReplicas()}
		for part := range t.Partitions {
			row.Size += sizes[t.Topic][part]
			if e, ok := ends.Lookup(t.Topic, part); ok && e.Err == nil {
				if st, ok := starts.Lookup(t.Topic, part); ok && st.Err == nil {
					row.Records += e.Offset - st.Offset
				}
			}
		}
		d.Rows = append(d.Rows, row)
	}
	return nil
}

type topicsData struct {
	Rows []topicRow
	// SizesErr is why sizes are not shown, empty when they are.
	SizesErr string
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// partitionFigures reads the partitions' sizes on disk and their start
// and end offsets. sizesErr is the broker's refusal of the sizes, which
// need DESCRIBE on the cluster: a user who may read topics often lacks
// it, and the rest of the page is still theirs.
func (s *Server) partitionFigures(ctx context.Context, k *kafka, topics ...string) (sizes map[string]map[int32]int64, starts, ends kadm.ListedOffsets, sizesErr, err error) {
	sizes = map[string]map[int32]int64{}
	if len(topics) == 0 {
		return sizes, nil, nil, nil, nil
	}
	dirs, err := k.admin.DescribeAllLogDirs(ctx, nil)
	switch {
	case errors.Is(err, kerr.ClusterAuthorizationFailed):
		sizesErr = err
	case err != nil:
		return nil, nil, nil, nil, err
	}
	for _, broker := range dirs {
		broker.EachPartition(func(d kadm.DescribedLogDirPartition) {
			if sizes[d.Topic] == nil {
				sizes[d.Topic] = map[int32]int64{}
			}
			sizes[d.Topic][d.Partition] += d.Size
		})
	}
	if starts, err = k.admin.ListStartOffsets(ctx, topics...); err != nil {
		return nil, nil, nil, nil, err
	}
	if ends, err = k.admin.ListEndOffsets(ctx, topics...); err != nil {
		return nil, nil, nil, nil, err
	}
	return sizes, starts, ends, sizesErr, nil
}

type topicData struct {
	Name       string
	ID         string
	Internal   bool
	Partitions []partitionRow
	Configs    []configRow
	SizesErr   string
	ConfigsErr string // the broker's refusal of the configs, if it refused
}

type partitionRow struct {
	Partition       int32
	Leader          int32
	LeaderEpoch     int32
	Replicas, ISR   []int32
	Start, End      int64
	Size            int64
	Err             string
	MessagesQuery   string
	OfflineReplicas []int32
}

type configRow struct {
	Name, Value, Source string
	Sensitive, Default  bool
}

func (s *Server) topic(ctx context.Context, k *kafka, r *http.Request, p *page) error {
	name := r.PathValue("topic")
	p.Title = "Topic " + name
	details, err := k.admin.ListTopicsWithInternal(ctx, name)
	if err == nil {
		err = details.Error()
	}
	if err != nil {
		return err
	}
	t := details[name]
	d := topicData{Name: name, ID: t.ID.String(), Internal: t.IsInternal}
	p.Data = &d
	sizes, starts, ends, sizesErr, err := s.partitionFigures(ctx, k, name)
	if err != nil {
		return err
	}
	d.SizesErr = errText(sizesErr)
	for _, pd := range t.Partitions.Sorted() {
		row := partitionRow{Partition: pd.Partition, Leader: pd.Leader, LeaderEpoch: pd.LeaderEpoch, Replicas: pd.Replicas,
			ISR: pd.ISR, OfflineReplicas: pd.OfflineReplicas, Size: sizes[name][pd.Partition], Start: -1, End: -1,
			MessagesQuery: "partition=" + strconv.Itoa(int(pd.Partition))}
		if pd.Err != nil {
			row.Err = pd.Err.Error()
		}
		if o, ok := starts.Lookup(name, pd.Partition); ok && o.Err == nil {
			row.Start = o.Offset
		}
		if o, ok := ends.Lookup(name, pd.Partition); ok && o.Err == nil {
			row.End = o.Offset
		}
		d.Partitions = append(d.Partitions, row)
	}
	configs, err := k.admin.DescribeTopicConfigs(ctx, name)
	var rc kadm.ResourceConfig
	if err == nil {
		if rc, err = configs.On(name, nil); err == nil {
			err = rc.Err
		}
	}
	if errors.Is(err, kerr.TopicAuthorizationFailed) {
		// Configs need DESCRIBE_CONFIGS, which a user who may read the
		// topic often lacks; the partitions above are still theirs.
		d.ConfigsErr, err = err.Error(), nil
	}
	for _, c := range rc.Configs {
		row := configRow{Name: c.Key, Source: c.Source.String(), Sensitive: c.Sensitive, Default: c.Source.String() == "DEFAULT_CONFIG"}
		if c.Value != nil && !c.Sensitive {
			row.Value = *c.Value
		}
		d.Configs = append(d.Configs, row)
	}
	sort.Slice(d.Configs, func(i, j int) bool { return d.Configs[i].Name < d.Configs[j].Name })
	return err
}
