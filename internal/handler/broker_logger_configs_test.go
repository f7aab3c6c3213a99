package handler

import (
	"bytes"
	"log/slog"
	"maps"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/loglevel"
)

// loggerFixture: an admin fixture whose loggers write to buf, root at INFO,
// with Karst's package loggers registered as the node registers them.
func loggerFixture(t *testing.T) (*adminFixture, *slog.Logger, *bytes.Buffer) {
	f := newAdminFixture(t, nil)
	var buf bytes.Buffer
	levels := loglevel.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: loglevel.LevelTrace}), slog.LevelInfo)
	server := levels.Logger("karst.server")
	levels.Logger("karst.group")
	f.b.opts.LogLevels = levels
	return f, server, &buf
}

func describeLoggers(f *adminFixture, name string, keys ...string) kmsg.DescribeConfigsResponseResource {
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.ConfigNames = resourceBrokerLogger, name, keys
	req.Resources = append(req.Resources, r)
	return f.call(req, 4).(*kmsg.DescribeConfigsResponse).Resources[0]
}

func loggerLevels(res kmsg.DescribeConfigsResponseResource) map[string]string {
	out := map[string]string{}
	for _, c := range res.Configs {
		if c.Source != configSourceDynamicBrokerLogger || c.ReadOnly || c.IsSensitive || c.Value == nil {
			return map[string]string{"bad entry": c.Name}
		}
		out[c.Name] = *c.Value
	}
	return out
}

type loggerOp struct {
	name  string
	op    kmsg.IncrementalAlterConfigOp
	value *string
}

func alterLoggers(f *adminFixture, name string, validateOnly bool, ops ...loggerOp) (int16, string) {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.ValidateOnly = validateOnly
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = resourceBrokerLogger, name
	for _, o := range ops {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = o.name, o.op, o.value
		r.Configs = append(r.Configs, c)
	}
	req.Resources = append(req.Resources, r)
	res := f.call(req, 1).(*kmsg.IncrementalAlterConfigsResponse).Resources[0]
	msg := ""
	if res.ErrorMessage != nil {
		msg = *res.ErrorMessage
	}
	return res.ErrorCode, msg
}

func TestBrokerLoggerLevelChangesTakeEffect(t *testing.T) {
	f, server, buf := loggerFixture(t)
	want := map[string]string{"root": "INFO", "karst": "INFO", "karst.server": "INFO", "karst.group": "INFO"}
	if got := loggerLevels(describeLoggers(f, "1")); !maps.Equal(got, want) {
		t.Fatalf("loggers %v, want %v", got, want)
	}
	server.Debug("before")
	if code, msg := alterLoggers(f, "1", false, loggerOp{"karst.server", 0, strp("DEBUG")}); code != 0 {
		t.Fatalf("set: %d %s", code, msg)
	}
	server.Debug("after")
	if out := buf.String(); strings.Contains(out, "msg=before") || !strings.Contains(out, "msg=after") {
		t.Fatalf("log after karst.server=DEBUG:\n%s", out)
	}
	got := loggerLevels(describeLoggers(f, "1", "karst.server", "karst.group", "nope"))
	if !maps.Equal(got, map[string]string{"karst.server": "DEBUG", "karst.group": "INFO"}) {
		t.Fatalf("named loggers: %v", got)
	}
	// A parent's level reaches children without their own.
	if code, _ := alterLoggers(f, "1", false, loggerOp{"karst", 0, strp("ERROR")}, loggerOp{"karst.server", 1, nil}); code != 0 {
		t.Fatalf("karst=ERROR, unset karst.server: %d", code)
	}
	buf.Reset()
	server.Warn("hidden")
	if buf.Len() != 0 {
		t.Fatalf("warn logged with karst at ERROR: %s", buf)
	}
	if got := loggerLevels(describeLoggers(f, "1", "karst.server")); got["karst.server"] != "ERROR" {
		t.Fatalf("karst.server follows karst: %v", got)
	}
	// validate_only changes nothing.
	if code, _ := alterLoggers(f, "1", true, loggerOp{"karst", 0, strp("TRACE")}); code != 0 {
		t.Fatal(code)
	}
	if got := loggerLevels(describeLoggers(f, "1", "karst")); got["karst"] != "ERROR" {
		t.Fatalf("validate_only changed the level: %v", got)
	}
}

// The refusals and messages of Kafka 4.4.0 (asked with the same requests).
func TestBrokerLoggerRefusals(t *testing.T) {
	f, _, _ := loggerFixture(t)
	for _, c := range []struct {
		name string
		ops  []loggerOp
		code int16
		msg  string
	}{
		{"1", []loggerOp{{"karst", 0, strp("debug")}}, kerr.InvalidConfig.Code,
			"Cannot set the log level of karst to debug as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"},
		{"1", []loggerOp{{"karst", 0, strp("OFF")}}, kerr.InvalidConfig.Code,
			"Cannot set the log level of karst to OFF as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN"},
		{"1", []loggerOp{{"no.such.logger", 0, strp("DEBUG")}}, kerr.InvalidConfig.Code, "Logger no.such.logger does not exist!"},
		{"1", []loggerOp{{"no.such.logger", 1, nil}}, kerr.InvalidConfig.Code, "Logger no.such.logger does not exist!"},
		{"1", []loggerOp{{"root", 1, nil}}, kerr.InvalidRequest.Code, "Removing the log level of the root logger is not allowed"},
		{"1", []loggerOp{{"karst", 2, strp("DEBUG")}}, kerr.InvalidRequest.Code, "APPEND operation is not allowed for the BROKER_LOGGER resource"},
		{"1", []loggerOp{{"karst", 3, strp("DEBUG")}}, kerr.InvalidRequest.Code, "SUBTRACT operation is not allowed for the BROKER_LOGGER resource"},
		{"1", []loggerOp{{"karst", 0, nil}}, kerr.InvalidRequest.Code, "Null value not supported for : karst"},
		{"1", []loggerOp{{"karst", 0, strp("INFO")}, {"karst", 0, strp("WARN")}}, kerr.InvalidRequest.Code, "Error due to duplicate config keys"},
		{"2", []loggerOp{{"karst", 0, strp("INFO")}}, kerr.InvalidRequest.Code, "Unexpected node id. Expected 1, but received 2"},
		{"x", []loggerOp{{"karst", 0, strp("INFO")}}, kerr.InvalidRequest.Code, "Node id must be an integer, but it is: x"},
		{"", []loggerOp{{"karst", 0, strp("INFO")}}, kerr.InvalidRequest.Code, "Node id must be an integer, but it is: "},
		// A refused change refuses the whole resource: the first SET is not applied.
		{"1", []loggerOp{{"karst", 0, strp("TRACE")}, {"root", 1, nil}}, kerr.InvalidRequest.Code, "Removing the log level of the root logger is not allowed"},
	} {
		if code, msg := alterLoggers(f, c.name, false, c.ops...); code != c.code || msg != c.msg {
			t.Errorf("%q %v: %d %q, want %d %q", c.name, c.ops, code, msg, c.code, c.msg)
		}
	}
	if got := loggerLevels(describeLoggers(f, "1", "karst")); got["karst"] != "INFO" {
		t.Fatalf("a refused request changed a level: %v", got)
	}
	for name, msg := range map[string]string{
		"":  "Broker id must not be empty",
		"x": "Broker id must be an integer, but it is: x",
		"2": "Unexpected broker id, expected 1 but received 2",
	} {
		res := describeLoggers(f, name)
		if res.ErrorCode != kerr.InvalidRequest.Code || res.ErrorMessage == nil || *res.ErrorMessage != msg || len(res.Configs) != 0 {
			t.Errorf("describe %q: %d %v %v", name, res.ErrorCode, res.ErrorMessage, res.Configs)
		}
	}
	// Legacy AlterConfigs does not know the type.
	req := kmsg.NewPtrAlterConfigsRequest()
	r := kmsg.NewAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = resourceBrokerLogger, "1"
	c := kmsg.NewAlterConfigsRequestResourceConfig()
	c.Name, c.Value = "karst", strp("DEBUG")
	r.Configs = append(r.Configs, c)
	req.Resources = append(req.Resources, r)
	res := f.call(req, 2).(*kmsg.AlterConfigsResponse).Resources[0]
	if res.ErrorCode != kerr.InvalidRequest.Code || *res.ErrorMessage != "Unknown resource type 8" {
		t.Fatalf("AlterConfigs: %d %v", res.ErrorCode, res.ErrorMessage)
	}
}
