package metadata

import (
	"testing"
	"time"
)

// A caller that finds an internal topic while another is creating it must
// not return before the creating commit's OnCommit (which opens the
// topic's logs) has run: the image holds the topic before then.
func TestEnsureInternalTopicWaitsForTheCreatingCommit(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var s *Store
	s, err := OpenStore(newMemLog(), StoreOptions{Node: testNode, OnCommit: func(_, next *Image, _ []Record) {
		if _, ok := next.Topic("__share_group_state"); ok && s != nil {
			select {
			case <-entered:
			default:
				close(entered)
				<-release
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	created := make(chan error, 1)
	go func() { created <- s.EnsureInternalTopic("__share_group_state", 3, "producer", 0) }()
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the creating commit never reached OnCommit")
	}
	if _, ok := s.Image().Topic("__share_group_state"); !ok {
		t.Fatal("the image does not hold the topic while its commit's OnCommit runs")
	}
	second := make(chan error, 1)
	go func() { second <- s.EnsureInternalTopic("__share_group_state", 3, "producer", 0) }()
	select {
	case err := <-second:
		t.Fatalf("the second EnsureInternalTopic returned (%v) before the creating commit's OnCommit ended", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	for _, c := range []chan error{created, second} {
		select {
		case err := <-c:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("EnsureInternalTopic did not return after OnCommit ended")
		}
	}
}
