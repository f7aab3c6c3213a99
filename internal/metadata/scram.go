package metadata

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// ScramMechanism is a SCRAM mechanism by the type number Kafka stores in
// UserScramCredentialRecord and the SCRAM user APIs.
type ScramMechanism int8

// Kafka's ScramMechanism types.
const (
	ScramUnknown ScramMechanism = 0
	ScramSHA256  ScramMechanism = 1
	ScramSHA512  ScramMechanism = 2
)

// Kafka's bounds on a credential's iterations (ScramMechanism.minIterations
// and ScramControlManager.MAX_ITERATIONS).
const (
	ScramMinIterations = 4096
	ScramMaxIterations = 16384
)

// metadataVersionScram is 3.5-IV2, the first metadata.version that stores
// SCRAM credentials.
const metadataVersionScram int16 = 11

// ScramMechanismNamed returns the mechanism for a SASL mechanism name.
func ScramMechanismNamed(name string) ScramMechanism {
	switch name {
	case "SCRAM-SHA-256":
		return ScramSHA256
	case "SCRAM-SHA-512":
		return ScramSHA512
	}
	return ScramUnknown
}

// Name is the SASL mechanism name, or "" for an unknown type.
func (m ScramMechanism) Name() string {
	switch m {
	case ScramSHA256:
		return "SCRAM-SHA-256"
	case ScramSHA512:
		return "SCRAM-SHA-512"
	}
	return ""
}

// Hash is the mechanism's hash function.
func (m ScramMechanism) Hash() func() hash.Hash {
	if m == ScramSHA512 {
		return sha512.New
	}
	return sha256.New
}

// ScramCredential is what the cluster keeps of a SCRAM password (RFC
// 5802): never the password, only the keys derived from it.
type ScramCredential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int32
}

// ScramCredentialFromSaltedPassword derives the stored and server keys
// from a salted password, as Kafka's ScramControlManager does for
// AlterUserScramCredentials (ScramFormatter).
func ScramCredentialFromSaltedPassword(m ScramMechanism, salt, saltedPassword []byte, iterations int32) ScramCredential {
	h := m.Hash()
	clientKey := hmacOf(h, saltedPassword, "Client Key")
	storedKey := h()
	storedKey.Write(clientKey)
	return ScramCredential{Salt: salt, StoredKey: storedKey.Sum(nil), ServerKey: hmacOf(h, saltedPassword, "Server Key"), Iterations: iterations}
}

func hmacOf(h func() hash.Hash, key []byte, text string) []byte {
	mac := hmac.New(h, key)
	mac.Write([]byte(text))
	return mac.Sum(nil)
}

type scramKey struct {
	user      string
	mechanism ScramMechanism
}

// ScramCredential returns a user's credential for a mechanism.
func (img *Image) ScramCredential(m ScramMechanism, user string) (ScramCredential, bool) {
	c, ok := img.scram[scramKey{user, m}]
	return c, ok
}

func (b *builder) applyUserScramCredential(r *UserScramCredentialRecord) {
	b.img.scram[scramKey{r.Name, ScramMechanism(r.Mechanism)}] = ScramCredential{
		Salt: r.Salt, StoredKey: r.StoredKey, ServerKey: r.ServerKey, Iterations: r.Iterations}
}

func (b *builder) applyRemoveUserScramCredential(r *RemoveUserScramCredentialRecord) error {
	k := scramKey{r.Name, ScramMechanism(r.Mechanism)}
	if _, ok := b.img.scram[k]; !ok {
		return opError(kerr.ResourceNotFound, "unable to find credential to delete: "+r.Name)
	}
	delete(b.img.scram, k)
	return nil
}

// scramRecords are the image's credentials as records, for a snapshot.
func (img *Image) scramRecords() []Record {
	keys := slices.SortedFunc(maps.Keys(img.scram), func(a, b scramKey) int {
		return cmp.Or(cmp.Compare(a.user, b.user), cmp.Compare(a.mechanism, b.mechanism))
	})
	out := make([]Record, 0, len(keys))
	for _, k := range keys {
		c := img.scram[k]
		out = append(out, &UserScramCredentialRecord{Name: k.user, Mechanism: int8(k.mechanism),
			Salt: c.Salt, StoredKey: c.StoredKey, ServerKey: c.ServerKey, Iterations: c.Iterations})
	}
	return out
}

// ScramUserCredentials is one user's answer in DescribeUserScramCredentials:
// the mechanisms and iterations of its credentials, or Err.
type ScramUserCredentials struct {
	User       string
	Mechanisms []ScramMechanism
	Iterations []int32
	Err        *Error
}

// DescribeScramCredentials answers DescribeUserScramCredentials as Kafka's
// ScramImage.describe: no users names every user with a credential; a
// user named twice is DUPLICATE_RESOURCE, one without credentials
// RESOURCE_NOT_FOUND.
func (img *Image) DescribeScramCredentials(users []string) []ScramUserCredentials {
	duplicate := map[string]bool{}
	var order []string
	if len(users) == 0 {
		for k := range img.scram {
			if _, seen := duplicate[k.user]; !seen {
				duplicate[k.user] = false
				order = append(order, k.user)
			}
		}
		slices.Sort(order)
	}
	for _, u := range users {
		if _, seen := duplicate[u]; seen {
			duplicate[u] = true
			continue
		}
		duplicate[u] = false
		order = append(order, u)
	}
	out := make([]ScramUserCredentials, 0, len(order))
	for _, u := range order {
		res := ScramUserCredentials{User: u}
		switch {
		case duplicate[u]:
			res.Err = opError(kerr.DuplicateResource, "Cannot describe SCRAM credentials for the same user twice in a single request: "+u)
		default:
			for _, m := range []ScramMechanism{ScramSHA256, ScramSHA512} {
				if c, ok := img.scram[scramKey{u, m}]; ok {
					res.Mechanisms = append(res.Mechanisms, m)
					res.Iterations = append(res.Iterations, c.Iterations)
				}
			}
			if len(res.Mechanisms) == 0 {
				res.Err = opError(kerr.ResourceNotFound, "Attempt to describe a user credential that does not exist: "+u)
			}
		}
		out = append(out, res)
	}
	return out
}

// ScramDeletion and ScramUpsertion are the entries of
// AlterUserScramCredentials.
type ScramDeletion struct {
	User      string
	Mechanism ScramMechanism
}

// ScramUpsertion sets a user's credential from the salted password the
// client computed.
type ScramUpsertion struct {
	User           string
	Mechanism      ScramMechanism
	Iterations     int32
	Salt           []byte
	SaltedPassword []byte
}

// ScramAlterResult is one user's outcome; a nil Err is success.
type ScramAlterResult struct {
	User string
	Err  *Error
}

// AlterScramCredentials returns the records and per-user results of
// AlterUserScramCredentials, decided as Kafka's
// ScramControlManager.alterCredentials: a user altered twice in one
// request is DUPLICATE_RESOURCE; results list deletions, then upsertions,
// then refusals.
func (img *Image) AlterScramCredentials(deletions []ScramDeletion, upsertions []ScramUpsertion) ([]Record, []ScramAlterResult) {
	supported := img.MetadataVersion() >= metadataVersionScram
	refused := map[string]*Error{}
	var refusedOrder []string
	refuse := func(user string, e *Error) {
		if _, ok := refused[user]; !ok {
			refusedOrder = append(refusedOrder, user)
		}
		refused[user] = e
	}
	duplicate := func() *Error {
		return opError(kerr.DuplicateResource, "A user credential cannot be altered twice in the same request")
	}
	deleting := map[string]ScramDeletion{}
	var deleteOrder []string
	for _, d := range deletions {
		if _, ok := refused[d.User]; ok {
			continue
		}
		if _, ok := deleting[d.User]; ok {
			delete(deleting, d.User)
			refuse(d.User, duplicate())
			continue
		}
		if !supported {
			refuse(d.User, opError(kerr.UnsupportedVersion, "The current metadata.version does not support SCRAM"))
		} else if e := validScramUser(d.User, d.Mechanism); e != nil {
			refuse(d.User, e)
		} else if _, ok := img.scram[scramKey{d.User, d.Mechanism}]; !ok {
			refuse(d.User, opError(kerr.ResourceNotFound, "Attempt to delete a user credential that does not exist"))
		} else {
			deleting[d.User] = d
			deleteOrder = append(deleteOrder, d.User)
		}
	}
	upserting := map[string]ScramUpsertion{}
	var upsertOrder []string
	for _, u := range upsertions {
		if _, ok := refused[u.User]; ok {
			continue
		}
		_, deleted := deleting[u.User]
		_, upserted := upserting[u.User]
		if deleted || upserted {
			delete(deleting, u.User)
			delete(upserting, u.User)
			refuse(u.User, duplicate())
			continue
		}
		if !supported {
			refuse(u.User, opError(kerr.UnsupportedVersion, "The current metadata.version does not support SCRAM"))
		} else if e := validScramUpsertion(u); e != nil {
			refuse(u.User, e)
		} else {
			upserting[u.User] = u
			upsertOrder = append(upsertOrder, u.User)
		}
	}
	var records []Record
	var results []ScramAlterResult
	for _, user := range deleteOrder {
		if d, ok := deleting[user]; ok {
			records = append(records, &RemoveUserScramCredentialRecord{Name: d.User, Mechanism: int8(d.Mechanism)})
			results = append(results, ScramAlterResult{User: user})
		}
	}
	for _, user := range upsertOrder {
		if u, ok := upserting[user]; ok {
			c := ScramCredentialFromSaltedPassword(u.Mechanism, u.Salt, u.SaltedPassword, u.Iterations)
			records = append(records, &UserScramCredentialRecord{Name: u.User, Mechanism: int8(u.Mechanism),
				Salt: c.Salt, StoredKey: c.StoredKey, ServerKey: c.ServerKey, Iterations: c.Iterations})
			results = append(results, ScramAlterResult{User: user})
		}
	}
	for _, user := range refusedOrder {
		results = append(results, ScramAlterResult{User: user, Err: refused[user]})
	}
	return records, results
}

func validScramUser(user string, m ScramMechanism) *Error {
	if user == "" {
		return opError(kerr.UnacceptableCredential, "Username must not be empty")
	}
	if m.Name() == "" {
		return opError(kerr.UnsupportedSaslMechanism, "Unknown SCRAM mechanism")
	}
	return nil
}

func validScramUpsertion(u ScramUpsertion) *Error {
	if e := validScramUser(u.User, u.Mechanism); e != nil {
		return e
	}
	if u.Iterations < ScramMinIterations {
		return opError(kerr.UnacceptableCredential, "Too few iterations")
	}
	if u.Iterations > ScramMaxIterations {
		return opError(kerr.UnacceptableCredential, "Too many iterations")
	}
	return nil
}
