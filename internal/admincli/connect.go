package admincli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// connection holds the flags every verb takes to reach a cluster, named
// as Kafka's tools name them.
type connection struct {
	bootstrap     string
	commandConfig string
	timeout       time.Duration
}

func (c *connection) register(f *flags) {
	f.StringVar(&c.bootstrap, "bootstrap-server", "", "brokers to start from, `HOST:PORT,...` (default: bootstrap.servers of --command-config, else "+defaultPeer+")")
	f.StringVar(&c.commandConfig, "command-config", "", "Kafka client properties `FILE`: bootstrap.servers, client.id, request.timeout.ms, security.protocol, ssl.* (trust and key stores), sasl.mechanism and sasl.jaas.config (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)")
	f.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up on the cluster after this `DURATION`")
}

// clientProperties are the client property keys the CLI acts on; the
// others a Kafka client file may hold are reported and ignored.
var clientProperties = map[string]bool{
	"bootstrap.servers": true, "client.id": true, "request.timeout.ms": true, "security.protocol": true,
	"sasl.mechanism": true, "sasl.jaas.config": true,
	"ssl.endpoint.identification.algorithm": true,
	// librdkafka's names, which kcat's -F files hold.
	"ssl.ca.location": true, "sasl.username": true, "sasl.password": true,
}

func init() {
	for _, k := range tlsconfig.Keys {
		if k != "ssl.client.auth" && k != "ssl.cipher.suites" {
			clientProperties[k] = true
		}
	}
}

// readClientProperties reads a Kafka client properties file, keeping the
// keys in clientProperties and reporting the others to warn as ignored by
// tool.
func readClientProperties(path, tool string, warn io.Writer) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	parsed, err := config.ParseProperties(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	props := map[string]string{}
	for _, p := range parsed {
		if !clientProperties[p.Key] {
			fmt.Fprintf(warn, "karst: %s: ignoring %s, which %s does not use\n", path, p.Key, tool)
			continue
		}
		props[p.Key] = p.Value
	}
	return props, nil
}

// options turns the flags and the properties file into kgo options.
func (c *connection) options(s Streams, extra ...kgo.Opt) ([]kgo.Opt, error) {
	props := map[string]string{}
	if c.commandConfig != "" {
		var err error
		if props, err = readClientProperties(c.commandConfig, "the admin CLI", s.Err); err != nil {
			return nil, err
		}
	}
	security, err := securityOptions(props)
	if err != nil {
		if c.commandConfig != "" {
			err = fmt.Errorf("%s: %w", c.commandConfig, err)
		}
		return nil, err
	}
	extra = append(security, extra...)
	bootstrap := c.bootstrap
	if bootstrap == "" {
		bootstrap = props["bootstrap.servers"]
	}
	if bootstrap == "" {
		bootstrap = defaultPeer
	}
	clientID := "karst-cli"
	if id := props["client.id"]; id != "" {
		clientID = id
	}
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.ClientID(clientID)}
	if ms := props["request.timeout.ms"]; ms != "" {
		n, err := strconv.Atoi(ms)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("request.timeout.ms=%q is not a positive number", ms)
		}
		opts = append(opts, kgo.RequestTimeoutOverhead(time.Duration(n)*time.Millisecond))
	}
	return append(opts, extra...), nil
}

// client connects with the flags; close it when done.
func (c *connection) client(ctx context.Context, s Streams, extra ...kgo.Opt) (*kgo.Client, error) {
	opts, err := c.options(s, extra...)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	if err := c.waitForBroker(ctx, cl); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// waitForBroker waits, within --timeout, while the bootstrap servers
// refuse connections, as Kafka's admin client waits for a broker that is
// still starting (`karst serve &` followed by a command is the quickstart);
// kgo fails at once on a refused dial.
func (c *connection) waitForBroker(ctx context.Context, cl *kgo.Client) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	backoff := 20 * time.Millisecond
	for {
		err := cl.Ping(ctx)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil // reachable, or failing in a way the command reports
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// admin is the cluster's kadm client and the context bounded by --timeout.
type admin struct {
	*kadm.Client
	raw *kgo.Client
	ctx context.Context
}

// connectAdmin opens an admin client; the returned func releases it.
// parseAndConnect parses a command's flags (c registered on f), checks
// its operands, and connects: the start every admin command shares.
func (c *connection) parseAndConnect(ctx context.Context, f *flags, args []string, s Streams, check func([]string) error) ([]string, *admin, func(), error) {
	operands, err := f.parse(args)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := check(operands); err != nil {
		return nil, nil, nil, err
	}
	adm, done, err := c.connectAdmin(ctx, s)
	if err != nil {
		return nil, nil, nil, err
	}
	return operands, adm, done, nil
}

func (c *connection) connectAdmin(ctx context.Context, s Streams) (*admin, func(), error) {
	cl, err := c.client(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	return &admin{Client: kadm.NewClient(cl), raw: cl, ctx: ctx}, func() { cancel(); cl.Close() }, nil
}

// fetchOffsets is kadm's FetchOffsets, retried while the broker answers
// with a retriable error: Apache Kafka answers COORDINATOR_NOT_AVAILABLE
// until it has made __consumer_offsets, which the first group use creates.
func (a *admin) fetchOffsets(group string) (kadm.OffsetResponses, error) {
	backoff := 50 * time.Millisecond
	for {
		offsets, err := a.FetchOffsets(a.ctx, group)
		if err == nil || !kerr.IsRetriable(err) {
			return offsets, err
		}
		select {
		case <-a.ctx.Done():
			return nil, fmt.Errorf("%w (retried until %v)", err, a.ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}
