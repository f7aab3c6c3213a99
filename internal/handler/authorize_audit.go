package handler

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/karst-broker/karst/internal/loglevel"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/authorizer"
)

// auditLoggerName is the logger authorization decisions are written to,
// StandardAuthorizer's "kafka.authorizer.logger", so that a BROKER_LOGGER
// config of that name sets its level.
const auditLoggerName = "kafka.authorizer.logger"

// auditInterval is how often one denial (a principal, operation and
// resource) is logged; repeats in between are counted, not written.
const auditInterval = time.Minute

// maxTrackedDenials bounds the distinct denials remembered in one
// interval; denials of further resources are counted and summed into one
// line when the interval ends.
const maxTrackedDenials = 10000

// auditor logs and counts the authorizer's decisions, as
// StandardAuthorizerData.logAuditMessage: denials at INFO, allowed
// operations at DEBUG, and at TRACE those Kafka asks about without logging
// (the authorized_operations fields). Unlike Kafka it writes a denial once
// per interval, with the count of the repeats it held back, so a client
// retrying a refused request does not flood the log.
type auditor struct {
	log      *slog.Logger
	now      func() time.Time
	interval time.Duration
	counts   *prometheus.CounterVec
	// refusals counts the denials that refuse a request or part of it,
	// by principal and API.
	refusals *prometheus.CounterVec
	// counters caches counts' series by operation, resource type and
	// result, so a decision costs no label hashing.
	counters [16][8][2]atomic.Pointer[prometheus.Counter]

	mu        sync.Mutex
	denials   map[denialKey]*denialState
	untracked int64 // denials past maxTrackedDenials this interval
	pruned    time.Time
}

// denialKey is what a denial is written once per interval for.
type denialKey struct {
	principal    string
	operation    int8
	resourceType int8
	resource     string
}

// denialState is one denial's last written line and the repeats since.
type denialState struct {
	logged     time.Time
	suppressed int64
	host, api  string
	decision   authorizer.Decision // the last written line's, for the summary of its repeats
}

func newAuditor(log *slog.Logger, now func() time.Time, interval time.Duration, reg prometheus.Registerer) *auditor {
	counts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "karst", Subsystem: "authorizer", Name: "decisions_total",
		Help: "Authorization decisions, by operation, resource type and result (ALLOWED or DENIED).",
	}, []string{"operation", "resource_type", "result"})
	refusals := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "karst", Subsystem: "authorizer", Name: "refusals_total",
		Help: "Denials that refused a request or part of it (those Kafka logs at INFO), by principal and API.",
	}, []string{"principal", "api"})
	return &auditor{log: log, now: now, interval: interval, counts: registered(reg, counts), refusals: registered(reg, refusals),
		denials: map[denialKey]*denialState{}}
}

// registered registers c with reg, or returns the collector of the same
// name registered already (a second broker in one process).
func registered(reg prometheus.Registerer, c *prometheus.CounterVec) *prometheus.CounterVec {
	if reg == nil {
		return c
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return c
}

// newBrokerAuditor is the broker's auditor, made with the broker so that
// its logger is known (to BROKER_LOGGER configs) before the first request.
func newBrokerAuditor(opts Options) *auditor {
	var reg prometheus.Registerer
	if opts.Metrics != nil {
		reg = opts.Metrics.Registry
	}
	return newAuditor(opts.LogLevels.Logger(auditLoggerName), time.Now, auditInterval, reg)
}

// decided records one decision: counted always, logged as its result and
// quiet (Kafka's logIfAllowed and logIfDenied both false) say. A denial
// that is not quiet refuses (part of) the request: it is counted by
// principal and API too.
func (a *auditor) decided(principal, host, api string, act authorizer.Action, d authorizer.Decision, quiet bool) {
	a.count(act, d.Allowed)
	ctx := context.Background()
	switch {
	case quiet:
		if a.log.Enabled(ctx, loglevel.LevelTrace) {
			a.write(loglevel.LevelTrace, principal, host, api, act, d, 0, 1)
		}
	case d.Allowed:
		if a.log.Enabled(ctx, slog.LevelDebug) {
			a.write(slog.LevelDebug, principal, host, api, act, d, 0, 1)
		}
	default:
		a.refusals.WithLabelValues(principal, api).Inc()
		if a.log.Enabled(ctx, slog.LevelInfo) {
			a.denied(principal, host, api, act, d)
		}
	}
}

// decidedUnreferenced records the question authorizeByResourceType asks
// for no resource of the request (resourceRefCount 0), with logIfAllowed
// true and logIfDenied false: allowed at DEBUG, denied at TRACE.
func (a *auditor) decidedUnreferenced(principal, host, api string, act authorizer.Action, d authorizer.Decision) {
	a.count(act, d.Allowed)
	level := loglevel.LevelTrace
	if d.Allowed {
		level = slog.LevelDebug
	}
	if a.log.Enabled(context.Background(), level) {
		a.write(level, principal, host, api, act, d, 0, 0)
	}
}

func (a *auditor) count(act authorizer.Action, allowed bool) {
	op, rt, res := int(act.Operation), int(act.ResourceType), 0
	if allowed {
		res = 1
	}
	if op < 0 || op >= len(a.counters) || rt < 0 || rt >= len(a.counters[0]) {
		op, rt = 0, 0
	}
	slot := &a.counters[op][rt][res]
	c := slot.Load()
	if c == nil {
		result := "DENIED"
		if allowed {
			result = "ALLOWED"
		}
		made := a.counts.WithLabelValues(metadata.OperationName(int8(op)), metadata.ResourceTypeName(int8(rt)), result)
		slot.CompareAndSwap(nil, &made)
		c = slot.Load()
	}
	(*c).Inc()
}

// denied writes a denial unless the same one was written less than an
// interval ago, in which case it is only counted.
func (a *auditor) denied(principal, host, api string, act authorizer.Action, d authorizer.Decision) {
	now := a.now()
	k := denialKey{principal: principal, operation: act.Operation, resourceType: act.ResourceType, resource: act.ResourceName}
	a.mu.Lock()
	summaries, untracked := a.pruneLocked(now)
	s, seen := a.denials[k]
	var suppressed int64
	write := true
	switch {
	case seen && now.Sub(s.logged) < a.interval:
		s.suppressed++
		write = false
	case seen:
		suppressed = s.suppressed
		s.logged, s.suppressed, s.host, s.api, s.decision = now, 0, host, api, d
	case len(a.denials) >= maxTrackedDenials:
		a.untracked++
		write = false
	default:
		a.denials[k] = &denialState{logged: now, host: host, api: api, decision: d}
	}
	a.mu.Unlock()
	for _, sm := range summaries {
		a.summary(sm.key, sm.state)
	}
	if untracked > 0 {
		a.log.Info("Denied "+strconv.FormatInt(untracked, 10)+" more operations on resources past the audit's limit of "+
			strconv.Itoa(maxTrackedDenials)+" in the last "+a.interval.String(), "logger", auditLoggerName, "suppressed", untracked)
	}
	if write {
		a.write(slog.LevelInfo, principal, host, api, act, d, suppressed, 1)
	}
}

type pendingSummary struct {
	key   denialKey
	state denialState
}

// pruneLocked forgets, once per interval, the denials last written an
// interval or more ago, returning those with held-back repeats to be
// summed up in a line of their own.
func (a *auditor) pruneLocked(now time.Time) (out []pendingSummary, untracked int64) {
	if now.Sub(a.pruned) < a.interval {
		return nil, 0
	}
	a.pruned = now
	for k, s := range a.denials {
		if now.Sub(s.logged) >= a.interval {
			if s.suppressed > 0 {
				out = append(out, pendingSummary{key: k, state: *s})
			}
			delete(a.denials, k)
		}
	}
	untracked, a.untracked = a.untracked, 0
	return out, untracked
}

// summary writes the repeats of a denial that was not seen again after
// its interval.
func (a *auditor) summary(k denialKey, s denialState) {
	act := authorizer.Action{Operation: k.operation, ResourceType: k.resourceType, ResourceName: k.resource}
	a.log.Info(message(k.principal, s.host, s.api, act, s.decision, 1)+" ("+strconv.FormatInt(s.suppressed, 10)+" repeats suppressed)",
		attrs(k.principal, s.host, s.api, act, s.suppressed)...)
}

func (a *auditor) write(level slog.Level, principal, host, api string, act authorizer.Action, d authorizer.Decision, suppressed int64, refs int) {
	msg := message(principal, host, api, act, d, refs)
	if suppressed > 0 {
		msg += " (" + strconv.FormatInt(suppressed, 10) + " repeats suppressed)"
	}
	a.log.Log(context.Background(), level, msg, attrs(principal, host, api, act, suppressed)...)
}

// message is StandardAuthorizerData.buildAuditMessage's line. Karst checks
// each distinct resource once, so refs, its resourceRefCount, is 1 (Kafka
// counts a resource named twice in one request twice), or 0 for a
// question about no resource of the request (authorizeByResourceType's).
func message(principal, host, api string, act authorizer.Action, d authorizer.Decision, refs int) string {
	result := "Denied"
	if d.Allowed {
		result = "Allowed"
	}
	return "Principal = " + principal + " is " + result + " operation = " + metadata.OperationName(act.Operation) +
		" from host = " + host + " on resource = " + resourcePattern(act) + " for request = " + api +
		" with resourceRefCount = " + strconv.Itoa(refs) + " based on rule " + d.Rule()
}

// requestName is the API's name as Kafka's ApiKeys spell it, which the
// audit line ("for request = ...") and its request attribute carry; kmsg
// spells a few otherwise.
func requestName(api *API) string {
	if name, ok := kafkaRequestNames[api.Key]; ok {
		return name
	}
	return api.Name
}

var kafkaRequestNames = map[int16]string{
	17: "SaslHandshake", 22: "InitProducerId", 29: "DescribeAcls", 30: "CreateAcls", 31: "DeleteAcls",
	36: "SaslAuthenticate", 45: "AlterPartitionReassignments", 50: "DescribeUserScramCredentials",
	51: "AlterUserScramCredentials",
}

// resourcePattern is a resource as Kafka's audit line writes it,
// "Topic:LITERAL:orders".
func resourcePattern(act authorizer.Action) string {
	return resourceTypeTitles[act.ResourceType] + ":LITERAL:" + act.ResourceName
}

// resourceTypeTitles are SecurityUtils.resourceTypeName's names.
var resourceTypeTitles = map[int8]string{
	metadata.ResourceTopic: "Topic", metadata.ResourceGroup: "Group", metadata.ResourceCluster: "Cluster",
	metadata.ResourceTransactionalID: "TransactionalId", metadata.ResourceDelegationToken: "DelegationToken",
	metadata.ResourceUser: "User",
}

func attrs(principal, host, api string, act authorizer.Action, suppressed int64) []any {
	return []any{"logger", auditLoggerName, "principal", principal, "host", host,
		"operation", metadata.OperationName(act.Operation), "resource", resourcePattern(act),
		"request", api, "suppressed", suppressed}
}
