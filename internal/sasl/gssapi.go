package sasl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Krb5LoginModule is the JAAS login module a Kafka broker names for
// GSSAPI: its keyTab and principal options say which key accepts tickets.
const Krb5LoginModule = "com.sun.security.auth.module.Krb5LoginModule"

// gssapiAcceptor is the GSSAPI set-up of one listener: the service
// principal's keys and how client principals become short names.
type gssapiAcceptor struct {
	principal types.PrincipalName
	realm     string
	settings  *service.Settings
	namer     *ShortNamer
}

// newGSSAPIAcceptor reads what Kafka's broker reads for GSSAPI: the
// listener's gssapi.sasl.jaas.config (a Krb5LoginModule with
// useKeyTab=true, storeKey=true, keyTab and principal),
// sasl.kerberos.service.name and sasl.kerberos.principal.to.local.rules.
// The default realm, which DEFAULT strips, is krb5.conf's default_realm
// (the file KRB5_CONFIG names, else /etc/krb5.conf), as the JVM reads it.
func newGSSAPIAcceptor(listener string, s Settings) (*gssapiAcceptor, error) {
	key := "listener.name." + strings.ToLower(listener) + ".gssapi.sasl.jaas.config"
	jaas, ok := s.ListenerValue(listener, "gssapi.sasl.jaas.config")
	if !ok {
		return nil, missingJAAS(listener, GSSAPI, s, "a "+Krb5LoginModule+" and its useKeyTab, storeKey, keyTab and principal options")
	}
	module, err := ParseServerJAAS(jaas)
	if err != nil {
		return nil, fmt.Errorf("listener %s: %s: %w", listener, key, err)
	}
	if module.Class != Krb5LoginModule {
		return nil, fmt.Errorf("listener %s: GSSAPI's JAAS login module is %s, want %s", listener, module.Class, Krb5LoginModule)
	}
	for _, option := range []string{"useKeyTab", "storeKey"} {
		if !strings.EqualFold(module.Options[option], "true") {
			return nil, fmt.Errorf("listener %s: %s: a broker accepts tickets with the keys of its keytab, so %s=true is needed", listener, key, option)
		}
	}
	keytabPath, principal := module.Options["keyTab"], module.Options["principal"]
	if keytabPath == "" || principal == "" {
		return nil, fmt.Errorf("listener %s: %s: keyTab and principal are needed", listener, key)
	}
	serviceName, _ := s.ListenerValue(listener, "sasl.kerberos.service.name")
	if jaasService := module.Options["serviceName"]; jaasService != "" && serviceName != "" && jaasService != serviceName {
		return nil, fmt.Errorf("listener %s: conflicting serviceName values found in JAAS and Kafka configs value in JAAS file %s, value in Kafka config %s", listener, jaasService, serviceName)
	} else if serviceName == "" && jaasService == "" {
		return nil, fmt.Errorf("listener %s: no serviceName defined in either JAAS or Kafka config (sasl.kerberos.service.name)", listener)
	}
	kt, err := keytab.Load(keytabPath)
	if err != nil {
		return nil, fmt.Errorf("listener %s: keytab %s: %w", listener, keytabPath, err)
	}
	defaultRealm := krb5DefaultRealm()
	name, realm := types.ParseSPNString(principal)
	if realm == "" {
		realm = defaultRealm
	}
	if defaultRealm == "" {
		// With no krb5.conf the JVM has no default realm either and
		// Kafka's DEFAULT rule maps nothing; the service's realm is
		// the realm its clients come from far more often.
		defaultRealm = realm
	}
	if !keytabHolds(kt, name, realm) {
		return nil, fmt.Errorf("listener %s: keytab %s has no key for %s@%s", listener, keytabPath, name.PrincipalNameString(), realm)
	}
	rules, _ := s.ListenerValue(listener, "sasl.kerberos.principal.to.local.rules")
	namer, err := NewShortNamer(defaultRealm, splitList(rules))
	if err != nil {
		return nil, fmt.Errorf("listener %s: sasl.kerberos.principal.to.local.rules: %w", listener, err)
	}
	return &gssapiAcceptor{
		principal: name,
		realm:     realm,
		settings:  service.NewSettings(kt, service.KeytabPrincipal(name.PrincipalNameString()), service.DecodePAC(false)),
		namer:     namer,
	}, nil
}

func keytabHolds(kt *keytab.Keytab, name types.PrincipalName, realm string) bool {
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && slices.Equal(e.Principal.Components, name.NameString) {
			return true
		}
	}
	return false
}

// splitList splits a LIST config value as Kafka's ConfigDef does.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func krb5DefaultRealm() string {
	path := os.Getenv("KRB5_CONFIG")
	if path == "" {
		path = "/etc/krb5.conf"
	}
	// The first file of a KRB5_CONFIG list is the one that names it.
	path, _, _ = strings.Cut(path, ":")
	cfg, err := config.Load(path)
	if err != nil {
		return ""
	}
	return cfg.LibDefaults.DefaultRealm
}

func (a *gssapiAcceptor) start() Exchange { return &gssapiExchange{acceptor: a} }

type gssapiStage int

const (
	awaitingAPReq gssapiStage = iota
	// awaitingEmptyAfterAPRep: mutual authentication answered with an
	// AP-REP, and the client's empty token comes back.
	awaitingEmptyAfterAPRep
	awaitingLayerChoice
	gssapiDone
)

// gssapiExchange is RFC 4752 over Kerberos V5 as Java's GssKrb5Server
// runs it for Kafka: the client's AP-REQ, an AP-REP when the client asked
// for mutual authentication, then a wrapped offer of "no security layer"
// (Kafka offers only that) with a 64 KiB buffer, and the client's wrapped
// choice. The authorization id the client may append is ignored, as
// Kafka's callback handler authorizes the authenticated name.
type gssapiExchange struct {
	acceptor *gssapiAcceptor
	stage    gssapiStage
	ctx      gssContext
	user     string
}

// Security layers of RFC 4752's bit mask.
const (
	noSecurityLayer = 1
	// maxReceiveBuffer is Java's SASL default, which Kafka leaves.
	maxReceiveBuffer = 65536
)

var errGSSAPIStep = errors.New("GSSAPI token after authentication completed")

func (g *gssapiExchange) Done() bool   { return g.stage == gssapiDone }
func (g *gssapiExchange) User() string { return g.user }

func (g *gssapiExchange) Step(token []byte) ([]byte, error) {
	switch g.stage {
	case awaitingAPReq:
		ctx, apRep, err := acceptSecContext(g.acceptor, token)
		if err != nil {
			return nil, err
		}
		g.ctx = ctx
		if apRep != nil {
			g.stage = awaitingEmptyAfterAPRep
			return apRep, nil
		}
		return g.offerSecurityLayers()
	case awaitingEmptyAfterAPRep:
		if len(token) > 0 {
			return nil, errors.New("handshake expecting no response data from the client")
		}
		return g.offerSecurityLayers()
	case awaitingLayerChoice:
		choice, err := g.ctx.unwrap(token)
		if err != nil {
			return nil, fmt.Errorf("final handshake step failed: %w", err)
		}
		if len(choice) < 4 {
			return nil, fmt.Errorf("final handshake step failed: %d bytes of security layer choice", len(choice))
		}
		if choice[0]&noSecurityLayer == 0 {
			return nil, fmt.Errorf("client selected unsupported protection: %d", choice[0])
		}
		name, err := ParseKerberosName(g.ctx.peer)
		if err != nil {
			return nil, err
		}
		if g.user, err = g.acceptor.namer.ShortName(name); err != nil {
			return nil, err
		}
		g.stage = gssapiDone
		return nil, nil
	}
	return nil, errGSSAPIStep
}

func (g *gssapiExchange) offerSecurityLayers() ([]byte, error) {
	offer := make([]byte, 4)
	binary.BigEndian.PutUint32(offer, maxReceiveBuffer)
	offer[0] = noSecurityLayer
	g.stage = awaitingLayerChoice
	return g.ctx.wrap(offer)
}
