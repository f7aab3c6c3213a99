package handler

// ListTransactions (key 66), versions 0–2 (KIP-664).
//
//	v1: duration filter: transactions running longer than it (KIP-994).
//	v2: transactional id pattern, a regular expression the whole id must
//	    match (KIP-1152).
//
// Filters by state name and producer id; a state name Kafka does not
// know is listed back in unknown_state_filters. An invalid pattern is
// INVALID_REGULAR_EXPRESSION.

import (
	"context"
	"regexp"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/txn"
)

func init() { register(66, 0, 2, (*Broker).handleListTransactions) }

func (b *Broker) handleListTransactions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ListTransactionsRequest)
	v := r.Version()
	resp := kmsg.NewPtrListTransactionsResponse()
	tc := b.txns()
	if tc == nil {
		resp.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return Ready(resp)
	}
	f := txn.ListFilter{ProducerIDs: req.ProducerIDFilters, MinDurationMs: -1}
	for _, name := range req.StateFilters {
		s, ok := txn.StateByName(name)
		if !ok {
			resp.UnknownStateFilters = append(resp.UnknownStateFilters, name)
			continue
		}
		f.States = append(f.States, s)
	}
	if len(req.StateFilters) > 0 && len(f.States) == 0 {
		return Ready(resp) // only unknown states: nothing matches
	}
	if v >= 1 {
		f.MinDurationMs = req.DurationFilterMillis
	}
	if v >= 2 && req.TransactionalIDPattern != nil && *req.TransactionalIDPattern != "" {
		// The whole id must match, as Java's Matcher.matches.
		re, err := regexp.Compile(`^(?:` + *req.TransactionalIDPattern + `)$`)
		if err != nil {
			resp.ErrorCode = kerr.InvalidRegularExpression.Code
			return Ready(resp)
		}
		f.IDPattern = re
	}
	for _, l := range tc.List(f) {
		st := kmsg.NewListTransactionsResponseTransactionState()
		st.TransactionalID, st.ProducerID, st.TransactionState = l.TransactionalID, l.ProducerID, l.State.String()
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return Ready(resp)
}
