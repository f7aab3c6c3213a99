package principal

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
)

func TestDistinguishedNameIsJavaRFC2253(t *testing.T) {
	name := pkix.Name{
		Country:            []string{"US"},
		Organization:       []string{"Karst, Inc."},
		OrganizationalUnit: []string{"ServiceUsers"},
		CommonName:         " Duke#1",
		ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}, Value: "duke@example.com"},
		},
	}
	raw, err := asn1.Marshal(name.ToRDNSequence())
	if err != nil {
		t.Fatal(err)
	}
	got, err := DistinguishedName(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Java prints the e-mail attribute, which RFC 2253 has no keyword
	// for, as OID=#DER (a UTF8String here, tag 0x0c).
	want := `1.2.840.113549.1.9.1=#0c1064756b65406578616d706c652e636f6d,CN=\ Duke\#1,OU=ServiceUsers,O=Karst\, Inc.,C=US`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestDistinguishedNameRefusesGarbage(t *testing.T) {
	for _, raw := range [][]byte{nil, {0x30}, {0x30, 0x03, 0x31, 0x01, 0x00}, {0x04, 0x00}} {
		if dn, err := DistinguishedName(raw); err == nil {
			t.Errorf("%x parsed as %q", raw, dn)
		}
	}
}

func FuzzDistinguishedName(f *testing.F) {
	raw, _ := asn1.Marshal(pkix.Name{CommonName: "a", Country: []string{"US"}}.ToRDNSequence())
	f.Add(raw)
	f.Fuzz(func(t *testing.T, raw []byte) { DistinguishedName(raw) })
}
