package handler

// AlterUserScramCredentials (key 51), version 0 (flexible).
//
// Deletes and sets users' SCRAM credentials as Kafka's ScramControlManager
// does (see metadata.Image.AlterScramCredentials): the client sends the
// salt and salted password, the controller keeps only the stored and
// server keys, in UserScramCredentialRecords (RemoveUserScramCredential-
// Records for deletions) committed to __cluster_metadata together.
// Iterations must be 4096–16384; a user altered twice in one request is
// DUPLICATE_RESOURCE. A connection that authenticated with a credential
// keeps its session: as in Kafka, a changed password applies to the
// next authentication.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(51, 0, 0, (*Broker).handleAlterUserScramCredentials) }

func (b *Broker) handleAlterUserScramCredentials(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AlterUserSCRAMCredentialsRequest)
	deletions := make([]metadata.ScramDeletion, 0, len(req.Deletions))
	for _, d := range req.Deletions {
		deletions = append(deletions, metadata.ScramDeletion{User: d.Name, Mechanism: metadata.ScramMechanism(d.Mechanism)})
	}
	upsertions := make([]metadata.ScramUpsertion, 0, len(req.Upsertions))
	for _, u := range req.Upsertions {
		upsertions = append(upsertions, metadata.ScramUpsertion{User: u.Name, Mechanism: metadata.ScramMechanism(u.Mechanism),
			Iterations: u.Iterations, Salt: u.Salt, SaltedPassword: u.SaltedPassword})
	}
	results, err := b.opts.Metadata.AlterScramCredentials(deletions, upsertions)
	resp := kmsg.NewPtrAlterUserSCRAMCredentialsResponse()
	for _, res := range results {
		out := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
		out.User = res.User
		switch {
		case res.Err != nil:
			out.ErrorCode, out.ErrorMessage = res.Err.Code(), &res.Err.Message
		case err != nil:
			msg := err.Error()
			out.ErrorCode, out.ErrorMessage = kerr.UnknownServerError.Code, &msg
		}
		resp.Results = append(resp.Results, out)
	}
	if err == nil && len(results) > 0 {
		b.logger.Info("altered SCRAM credentials", "deletions", len(deletions), "upsertions", len(upsertions))
	}
	return Ready(resp)
}
