package tlsconfig

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// protocolVersions are the names Java (and so ssl.enabled.protocols and
// ssl.protocol) give TLS versions.
var protocolVersions = map[string]uint16{
	"TLSv1":   tls.VersionTLS10,
	"TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.3": tls.VersionTLS13,
}

// versionRange turns ssl.enabled.protocols (capped by ssl.protocol) into
// the contiguous range Go offers. A set with a gap (TLSv1.1,TLSv1.3)
// cannot be served and is refused rather than widened.
func versionRange(s Settings) (lowest, highest uint16, err error) {
	enabled := s.EnabledProtocols
	if len(enabled) == 0 {
		enabled = []string{"TLSv1.2", "TLSv1.3"}
	}
	var versions []uint16
	for _, name := range enabled {
		v, ok := protocolVersions[name]
		if !ok {
			return 0, 0, fmt.Errorf("ssl.enabled.protocols: unsupported protocol %s (use TLSv1.2, TLSv1.3)", name)
		}
		versions = append(versions, v)
	}
	slices.Sort(versions)
	versions = slices.Compact(versions)
	for i := 1; i < len(versions); i++ {
		if versions[i] != versions[i-1]+1 {
			return 0, 0, fmt.Errorf("ssl.enabled.protocols %s: the enabled versions must be consecutive", strings.Join(enabled, ","))
		}
	}
	lowest, highest = versions[0], versions[len(versions)-1]
	// ssl.protocol names the SSLContext's protocol: TLSv1.2 there leaves
	// TLS 1.3 out whatever ssl.enabled.protocols says.
	if limit, ok := protocolVersions[s.Protocol]; ok && limit < highest {
		highest = limit
	}
	if lowest > highest {
		return 0, 0, fmt.Errorf("ssl.enabled.protocols %s: none is allowed by ssl.protocol %s", strings.Join(enabled, ","), s.Protocol)
	}
	return lowest, highest, nil
}

// cipherSuites maps ssl.cipher.suites, given in IANA names as Java takes
// them (or with Java's legacy SSL_ prefix), to Go's suite ids for TLS 1.2
// and below. TLS 1.3 suites are accepted by name; Go always offers all
// three of them, so naming a subset does not narrow TLS 1.3.
func cipherSuites(names []string) (ids []uint16, onlyTLS13 bool, err error) {
	if len(names) == 0 {
		return nil, false, nil
	}
	byName := map[string]*tls.CipherSuite{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[cs.Name] = cs
	}
	tls13 := 0
	for _, name := range names {
		iana := name
		if rest, ok := strings.CutPrefix(name, "SSL_"); ok {
			iana = "TLS_" + rest
		}
		cs, ok := byName[iana]
		if !ok {
			return nil, false, fmt.Errorf("ssl.cipher.suites: unsupported cipher suite %s", name)
		}
		if slices.Equal(cs.SupportedVersions, []uint16{tls.VersionTLS13}) {
			tls13++
			continue
		}
		ids = append(ids, cs.ID)
	}
	return ids, tls13 == len(names), nil
}

// clientAuth maps ssl.client.auth.
func clientAuth(s string) (tls.ClientAuthType, error) {
	switch s {
	case "", "none":
		return tls.NoClientCert, nil
	case "requested":
		return tls.VerifyClientCertIfGiven, nil
	case "required":
		return tls.RequireAndVerifyClientCert, nil
	}
	return 0, fmt.Errorf("ssl.client.auth %s: must be none, requested or required", s)
}
