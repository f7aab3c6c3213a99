package main

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// scenario is one situation an API is tried in. run sends the request under test at version v
// (and whatever requests lead up to it) through s; only the requests sent with s.compare are
// compared between the brokers.
type scenario struct {
	name       string
	minVersion int16
	maxVersion int16 // 0 means no upper bound
	run        func(s *session, v int16)
}

func (sc scenario) applies(v int16) bool {
	return v >= sc.minVersion && (sc.maxVersion == 0 || v <= sc.maxVersion)
}

// step is one compared request's outcome.
type step struct {
	label string
	resp  kmsg.Response
	err   error
}

// session runs scenarios against one broker: its connection, the outcomes of compared requests
// and what the broker told this run (topic ids) that later requests need.
type session struct {
	conn     *brokerConn
	steps    []step
	topicIDs map[string][16]byte
}

func newSession(addr string) *session {
	return &session{conn: newBrokerConn(addr), topicIDs: map[string][16]byte{}}
}

// compare sends req and records its outcome for comparison under label.
func (s *session) compare(label string, req kmsg.Request) kmsg.Response {
	resp, err := s.conn.roundTrip(req)
	s.steps = append(s.steps, step{label: label, resp: resp, err: err})
	return resp
}

// send sends a request that leads up to the one under test; its outcome is not compared, but a
// broker that fails it will answer the compared request differently.
func (s *session) send(req kmsg.Request) kmsg.Response {
	resp, _ := s.conn.roundTrip(req)
	return resp
}

// takeSteps returns the recorded outcomes and starts a new recording.
func (s *session) takeSteps() []step {
	steps := s.steps
	s.steps = nil
	return steps
}

// topicID is the id this broker gave topic, asked once with Metadata.
func (s *session) topicID(topic string) [16]byte {
	if id, ok := s.topicIDs[topic]; ok {
		return id
	}
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	var id [16]byte
	if resp, ok := s.send(req).(*kmsg.MetadataResponse); ok && len(resp.Topics) == 1 && resp.Topics[0].ErrorCode == 0 {
		id = resp.Topics[0].TopicID
		s.topicIDs[topic] = id
	}
	return id
}

// forgetTopic drops a cached topic id, after the topic was deleted or recreated.
func (s *session) forgetTopic(topic string) { delete(s.topicIDs, topic) }

// apiScenarios lists the scenarios of every API key that has its own; an API Karst serves
// without any is still tried with its default (empty) request.
var apiScenarios = map[int16][]scenario{}

func register(key kmsg.Key, scenarios ...scenario) {
	apiScenarios[key.Int16()] = append(apiScenarios[key.Int16()], scenarios...)
}

// defaultRequestScenario sends the API's request with every field at its default.
func defaultRequestScenario(key int16) scenario {
	return scenario{name: "default-request", run: func(s *session, v int16) {
		req := kmsg.RequestForKey(key) // every field at its zero value
		req.SetVersion(v)
		s.compare("1", req)
	}}
}
