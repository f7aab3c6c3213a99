package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/karst-broker/karst/internal/handler"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/node"
	"github.com/karst-broker/karst/internal/server"
)

// defaultDataDir is where the embedded default keeps its data.
const defaultDataDir = "./karst-data"

// knownKeys are the server.properties keys this build reads.
var knownKeys = map[string]string{
	"listeners":                  "PLAINTEXT://:9092",
	"advertised.listeners":       "",
	"node.id":                    "1",
	"log.dirs":                   defaultDataDir,
	"socket.request.max.bytes":   "104857600",
	"cluster.id":                 "",
	"auto.create.topics.enable":  "true",
	"num.partitions":             "1",
	"default.replication.factor": "1",
}

// loadNodeConfig reads the properties file (if any), applies overrides in
// order and turns the result into a node configuration.
func loadNodeConfig(sa serveArgs) (node.Config, []string, error) {
	props := map[string]string{}
	for k, v := range knownKeys {
		props[k] = v
	}
	var warnings []string
	set := func(k, v string) {
		if _, ok := knownKeys[k]; !ok {
			warnings = append(warnings, fmt.Sprintf("configuration key %q is not used by Karst", k))
		}
		props[k] = v
	}
	if sa.propertiesFile != "" {
		f, err := os.Open(sa.propertiesFile)
		if err != nil {
			return node.Config{}, nil, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return node.Config{}, nil, fmt.Errorf("%s: line %q is not key=value", sa.propertiesFile, line)
			}
			set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		if err := sc.Err(); err != nil {
			return node.Config{}, nil, err
		}
	}
	for _, o := range sa.overrides {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			return node.Config{}, nil, fmt.Errorf("--override %q is not key=value", o)
		}
		set(strings.TrimSpace(k), strings.TrimSpace(v))
	}

	var cfg node.Config
	id, err := strconv.ParseInt(props["node.id"], 10, 32)
	if err != nil || id < 0 {
		return cfg, nil, fmt.Errorf("node.id=%q: must be a non-negative integer", props["node.id"])
	}
	cfg.NodeID = int32(id)
	maxReq, err := strconv.ParseInt(props["socket.request.max.bytes"], 10, 32)
	if err != nil || maxReq < 1 {
		return cfg, nil, fmt.Errorf("socket.request.max.bytes=%q: must be an integer in [1, 2147483647]", props["socket.request.max.bytes"])
	}
	cfg.MaxRequestSize = int32(maxReq)
	cfg.ClusterID = props["cluster.id"]
	cfg.DataDir = props["log.dirs"]
	if strings.Contains(cfg.DataDir, ",") {
		return cfg, nil, fmt.Errorf("log.dirs=%q: Karst uses a single log directory", cfg.DataDir)
	}
	switch props["auto.create.topics.enable"] {
	case "true":
		cfg.AutoCreateTopics = true
	case "false":
	default:
		return cfg, nil, fmt.Errorf("auto.create.topics.enable=%q: must be true or false", props["auto.create.topics.enable"])
	}
	parts, err := strconv.ParseInt(props["num.partitions"], 10, 32)
	if err != nil || parts < 1 {
		return cfg, nil, fmt.Errorf("num.partitions=%q: must be an integer of at least 1", props["num.partitions"])
	}
	cfg.DefaultPartitions = int32(parts)
	rf, err := strconv.ParseInt(props["default.replication.factor"], 10, 16)
	if err != nil || rf < 1 {
		return cfg, nil, fmt.Errorf("default.replication.factor=%q: must be an integer of at least 1", props["default.replication.factor"])
	}
	cfg.DefaultReplicationFactor = int16(rf)
	cfg.LogDefaults = klog.DefaultConfig()
	listeners, err := parseListeners(props["listeners"])
	if err != nil {
		return cfg, nil, fmt.Errorf("listeners=%q: %v", props["listeners"], err)
	}
	advertisedSpec := props["advertised.listeners"]
	if advertisedSpec == "" {
		advertisedSpec = props["listeners"]
	}
	advertised, err := parseListeners(advertisedSpec)
	if err != nil {
		return cfg, nil, fmt.Errorf("advertised.listeners=%q: %v", advertisedSpec, err)
	}
	for _, l := range listeners {
		cfg.Listeners = append(cfg.Listeners, server.Listener{Name: l.name, Addr: net.JoinHostPort(l.host, strconv.Itoa(l.port))})
	}
	for _, a := range advertised {
		host := a.host
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		cfg.Advertised = append(cfg.Advertised, handler.Endpoint{ListenerName: a.name, Host: host, Port: int32(a.port), SecurityProtocol: a.name})
	}
	return cfg, warnings, nil
}

type listenerSpec struct {
	name string
	host string
	port int
}

func parseListeners(spec string) ([]listenerSpec, error) {
	var out []listenerSpec
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		name, rest, ok := strings.Cut(part, "://")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not NAME://host:port", part)
		}
		host, port, err := net.SplitHostPort(rest)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", part, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("%q: port must be in [0, 65535]", part)
		}
		out = append(out, listenerSpec{name: strings.ToUpper(name), host: host, port: p})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no listener")
	}
	return out, nil
}
