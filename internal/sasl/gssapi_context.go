package sasl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"
)

// gssContext is an established Kerberos V5 GSS-API security context on
// the acceptor's side: the key its per-message tokens are checksummed with
// (RFC 4121 2: the initiator's subkey when the authenticator carries one,
// else the ticket's session key, since Karst's AP-REP sends no subkey) and
// the sequence numbers of both directions.
type gssContext struct {
	key     types.EncryptionKey
	sendSeq uint64
	peer    string
}

// gssAPRepTokenID is RFC 1964's TOK_ID of a context token holding an AP-REP.
var gssAPRepTokenID = []byte{0x02, 0x00}

// acceptSecContext is GSS_Accept_sec_context on the client's initial
// context token: the AP-REQ is verified against the keytab (ticket,
// authenticator, clock skew, replay), and an AP-REP context token is
// returned when the client asked for mutual authentication.
func acceptSecContext(a *gssapiAcceptor, token []byte) (ctx gssContext, apRep []byte, err error) {
	var krb5 spnego.KRB5Token
	if err := krb5.Unmarshal(token); err != nil {
		return ctx, nil, fmt.Errorf("GSS initiate failed: %w", err)
	}
	if !krb5.IsAPReq() {
		return ctx, nil, errors.New("GSS initiate failed: the initial context token holds no AP-REQ")
	}
	req := &krb5.APReq
	ok, creds, err := service.VerifyAPREQ(req, a.settings)
	if err != nil || !ok {
		return ctx, nil, fmt.Errorf("GSS initiate failed: AP-REQ refused: %v", err)
	}
	if !req.Ticket.SName.Equal(a.principal) || req.Ticket.Realm != a.realm {
		return ctx, nil, fmt.Errorf("GSS initiate failed: ticket for %s@%s, not this service", req.Ticket.SName.PrincipalNameString(), req.Ticket.Realm)
	}
	auth := req.Authenticator
	ctx.key = req.Ticket.DecryptedEncPart.Key
	if len(auth.SubKey.KeyValue) > 0 {
		ctx.key = auth.SubKey
	}
	// Without an AP-REP both directions start at the authenticator's
	// sequence number (RFC 4121 4.2.4); Karst's AP-REP names the same.
	ctx.sendSeq = uint64(uint32(auth.SeqNumber))
	ctx.peer = creds.CName().PrincipalNameString() + "@" + creds.Domain()
	if !wantsMutualAuthentication(req) {
		return ctx, nil, nil
	}
	apRep, err = marshalAPRep(req, ctx.sendSeq)
	return ctx, apRep, err
}

func wantsMutualAuthentication(req *messages.APReq) bool {
	if types.IsFlagSet(&req.APOptions, flags.APOptionMutualRequired) {
		return true
	}
	// RFC 4121 4.1.1: the authenticator checksum's flags, little-endian
	// after the 4-byte length and 16 bytes of channel bindings.
	c := req.Authenticator.Cksum
	return c.CksumType == chksumtype.GSSAPI && len(c.Checksum) >= 24 &&
		binary.LittleEndian.Uint32(c.Checksum[20:24])&gssapi.ContextFlagMutual != 0
}

// encAPRepPart is RFC 4120 5.5.2's EncAPRepPart without a subkey.
type encAPRepPart struct {
	CTime          time.Time `asn1:"generalized,explicit,tag:0"`
	Cusec          int       `asn1:"explicit,tag:1"`
	SequenceNumber int64     `asn1:"optional,explicit,tag:3"`
}

// marshalAPRep builds the AP-REP context token that proves the service
// could read the authenticator: its time, sealed with the session key.
func marshalAPRep(req *messages.APReq, seq uint64) ([]byte, error) {
	part, err := asn1.Marshal(encAPRepPart{CTime: req.Authenticator.CTime, Cusec: req.Authenticator.Cusec, SequenceNumber: int64(seq)})
	if err != nil {
		return nil, err
	}
	encPart, err := crypto.GetEncryptedData(asn1tools.AddASNAppTag(part, asnAppTag.EncAPRepPart), req.Ticket.DecryptedEncPart.Key, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, err
	}
	rep, err := asn1.Marshal(messages.APRep{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: encPart})
	if err != nil {
		return nil, err
	}
	oid, err := asn1.Marshal(gssapi.OIDKRB5.OID())
	if err != nil {
		return nil, err
	}
	inner := append(append(oid, gssAPRepTokenID...), asn1tools.AddASNAppTag(rep, asnAppTag.APREP)...)
	return asn1tools.AddASNAppTag(inner, 0), nil
}

// RFC 4121 4.2.2 flags of a per-message token.
const (
	wrapSentByAcceptor = 0x01
	wrapSealed         = 0x02
)

// wrap is GSS_Wrap without confidentiality: the payload in the clear with
// the acceptor's checksum.
func (c *gssContext) wrap(payload []byte) ([]byte, error) {
	etype, err := crypto.GetEtype(c.key.KeyType)
	if err != nil {
		return nil, err
	}
	t := gssapi.WrapToken{Flags: wrapSentByAcceptor, EC: uint16(etype.GetHMACBitLength() / 8), SndSeqNum: c.sendSeq, Payload: payload}
	if err := t.SetCheckSum(c.key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		return nil, err
	}
	c.sendSeq++
	return t.Marshal()
}

// unwrap is GSS_Unwrap of an initiator's token without confidentiality
// (what RFC 4752's negotiation sends), undoing a right rotation.
func (c *gssContext) unwrap(token []byte) ([]byte, error) {
	if len(token) < gssapi.HdrLen {
		return nil, fmt.Errorf("wrap token of %d bytes", len(token))
	}
	if rrc := int(binary.BigEndian.Uint16(token[6:8])); rrc != 0 && len(token) > gssapi.HdrLen {
		body := token[gssapi.HdrLen:]
		rrc %= len(body)
		unrotated := make([]byte, 0, len(token))
		unrotated = append(unrotated, token[:gssapi.HdrLen]...)
		unrotated = append(append(unrotated, body[rrc:]...), body[:rrc]...)
		binary.BigEndian.PutUint16(unrotated[6:8], 0)
		token = unrotated
	}
	var t gssapi.WrapToken
	if err := t.Unmarshal(token, false); err != nil {
		return nil, err
	}
	if t.Flags&wrapSealed != 0 {
		return nil, errors.New("sealed wrap token: only integrity-protected negotiation is served")
	}
	if ok, err := t.Verify(c.key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		return nil, err
	}
	return t.Payload, nil
}
