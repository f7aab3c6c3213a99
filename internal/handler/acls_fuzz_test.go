package handler

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
)

// aclKeys are DescribeAcls, CreateAcls and DeleteAcls.
var aclKeys = []int16{29, 30, 31}

// FuzzACLHandlers decodes arbitrary ACL request bodies and runs them on a
// broker with the authorizer on and the caller a super user: no input may
// panic, and every answer must encode (or be a closed connection).
func FuzzACLHandlers(f *testing.F) {
	for i, key := range aclKeys {
		api := Lookup(key)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := kmsg.RequestForKey(key)
			req.SetVersion(v)
			f.Add(uint8(i), v, req.AppendTo(nil))
		}
	}
	create := kmsg.NewPtrCreateACLsRequest()
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceTypeTopic, "t", kmsg.ACLResourcePatternTypePrefixed
	c.Principal, c.Host, c.Operation, c.PermissionType = "User:a", "10.0.0.0/8", kmsg.ACLOperationRead, kmsg.ACLPermissionTypeAllow
	create.Creations = append(create.Creations, c)
	create.SetVersion(3)
	f.Add(uint8(1), int16(3), create.AppendTo(nil))

	f.Fuzz(func(t *testing.T, which uint8, version int16, body []byte) {
		key := aclKeys[int(which)%len(aclKeys)]
		api := Lookup(key)
		if !api.Supports(version) {
			return
		}
		req := kmsg.RequestForKey(key)
		req.SetVersion(version)
		if err := req.ReadFrom(body); err != nil {
			return
		}
		fx := newAdminFixture(t, nil)
		settings, _, err := config.FromProperties(map[string]string{"node.id": "1", "super.users": "User:ANONYMOUS",
			"authorizer.class.name": standardAuthorizer})
		if err != nil {
			t.Fatal(err)
		}
		fx.b.opts.Settings = settings
		out := fx.b.Handle(context.Background(), api, &Request{Header: wireHeader(key, version), Body: req, Conn: &Conn{ListenerName: "PLAINTEXT"}})
		if out.CloseConnection {
			return
		}
		out.Response.SetVersion(version)
		_ = out.Response.AppendTo(nil)
	})
}
