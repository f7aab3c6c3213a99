package node

import (
	"slices"
	"testing"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/metadata"
)

// The voter's listeners are the controller listeners Kafka would publish,
// the broker's only when the config names no controller listener.
func TestControllerEndpoints(t *testing.T) {
	advertised := []handler.Endpoint{{ListenerName: "PLAINTEXT", Host: "127.0.0.1", Port: 9092}}
	for _, c := range []struct {
		name  string
		props map[string]string
		want  []metadata.VoterEndpoint
	}{
		{"no controller listener", map[string]string{"listeners": "PLAINTEXT://:9092"},
			[]metadata.VoterEndpoint{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 9092}}},
		{"a controller listener, as Kafka's combined mode config has", map[string]string{
			"listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093", "controller.listener.names": "CONTROLLER",
			"listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"},
			[]metadata.VoterEndpoint{{Name: "CONTROLLER", Host: "127.0.0.1", Port: 9093}}},
		{"the static voter set only", map[string]string{
			"listeners": "PLAINTEXT://:9092", "controller.listener.names": "CONTROLLER", "controller.quorum.voters": "2@h2:1,1@ctl.example:9093",
			"listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"},
			[]metadata.VoterEndpoint{{Name: "CONTROLLER", Host: "ctl.example", Port: 9093}}},
	} {
		props := map[string]string{"node.id": "1"}
		for k, v := range c.props {
			props[k] = v
		}
		b, _, err := config.FromProperties(props)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := controllerEndpoints(b, 1, advertised); !slices.Equal(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
