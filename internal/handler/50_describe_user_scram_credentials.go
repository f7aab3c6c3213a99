package handler

// DescribeUserScramCredentials (key 50), version 0 (flexible).
//
// Lists the SCRAM mechanisms and iterations of users' credentials from the
// UserScramCredentialRecords in the cluster metadata, as Kafka's
// ScramImage.describe: no users (null or empty) lists every user with a
// credential; a user named twice is DUPLICATE_RESOURCE and one without
// credentials RESOURCE_NOT_FOUND, each with Kafka's message. Salts and
// keys are never sent.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(50, 0, 0, (*Broker).handleDescribeUserScramCredentials) }

func (b *Broker) handleDescribeUserScramCredentials(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeUserSCRAMCredentialsRequest)
	users := make([]string, 0, len(req.Users))
	for _, u := range req.Users {
		users = append(users, u.Name)
	}
	resp := kmsg.NewPtrDescribeUserSCRAMCredentialsResponse()
	for _, res := range b.opts.Metadata.Image().DescribeScramCredentials(users) {
		out := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
		out.User = res.User
		if res.Err != nil {
			out.ErrorCode, out.ErrorMessage = res.Err.Code(), &res.Err.Message
		}
		for i, m := range res.Mechanisms {
			info := kmsg.NewDescribeUserSCRAMCredentialsResponseResultCredentialInfo()
			info.Mechanism, info.Iterations = int8(m), res.Iterations[i]
			out.CredentialInfos = append(out.CredentialInfos, info)
		}
		resp.Results = append(resp.Results, out)
	}
	return Ready(resp)
}
