package principal

import (
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf16"
)

// rfc2253Keywords are the attribute names Java's X500Principal.getName()
// prints; any other attribute is printed as its OID and the hex of its
// DER value, as Java does, so mapping rules see the name Kafka sees.
var rfc2253Keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

type attributeTypeAndValue struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// relativeNameSET is one RDN; encoding/asn1 reads a slice type whose
// name ends in SET as an ASN.1 SET OF.
type relativeNameSET []attributeTypeAndValue

// DistinguishedName prints a certificate's subject (its raw DER, as
// x509.Certificate.RawSubject) in RFC 2253 form the way Java's
// X500Principal.getName() does: the last RDN first, no spaces after
// commas.
func DistinguishedName(rawSubject []byte) (string, error) {
	var rdns []relativeNameSET
	rest, err := asn1.Unmarshal(rawSubject, &rdns)
	if err != nil {
		return "", fmt.Errorf("certificate subject: %w", err)
	}
	if len(rest) > 0 {
		return "", fmt.Errorf("certificate subject: %d trailing bytes", len(rest))
	}
	var b strings.Builder
	for i := len(rdns) - 1; i >= 0; i-- {
		if i < len(rdns)-1 {
			b.WriteByte(',')
		}
		for j, atv := range rdns[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			writeAttribute(&b, atv)
		}
	}
	return b.String(), nil
}

func writeAttribute(b *strings.Builder, atv attributeTypeAndValue) {
	keyword, known := rfc2253Keywords[atv.Type.String()]
	value, isString := directoryString(atv.Value)
	if !known || !isString {
		b.WriteString(atv.Type.String())
		b.WriteString("=#")
		b.WriteString(hex.EncodeToString(atv.Value.FullBytes))
		return
	}
	b.WriteString(keyword)
	b.WriteByte('=')
	b.WriteString(escapeRFC2253(value))
}

// directoryString decodes the string types a name attribute may have.
func directoryString(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, asn1.TagNumericString:
		return string(v.Bytes), true
	case asn1.TagBMPString:
		if len(v.Bytes)%2 != 0 {
			return "", false
		}
		units := make([]uint16, len(v.Bytes)/2)
		for i := range units {
			units[i] = uint16(v.Bytes[2*i])<<8 | uint16(v.Bytes[2*i+1])
		}
		return string(utf16.Decode(units)), true
	}
	return "", false
}

// escapeRFC2253 quotes what Java's AVA.toRFC2253String quotes: the
// special characters anywhere, spaces at either end.
func escapeRFC2253(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(`,=+<>#;"\`, r):
			b.WriteByte('\\')
		case r == ' ' && (i == 0 || i == len(s)-1):
			b.WriteByte('\\')
		case r == 0:
			b.WriteString(`\00`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
