package sasl

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// LoginConfigProperty is the JVM system property that names a JAAS login
// configuration file; Kafka's scripts pass it in KAFKA_OPTS
// (-Djava.security.auth.login.config=/etc/kafka/kafka_server_jaas.conf).
const LoginConfigProperty = "java.security.auth.login.config"

// ServerContext is the JAAS file entry Kafka's brokers read when a
// mechanism has no <mechanism>.sasl.jaas.config; <listener>.KafkaServer
// (the listener name in lower case) comes before it.
const ServerContext = "KafkaServer"

// JAASFile is a JAAS login configuration file: named entries, each a list
// of login modules.
type JAASFile struct {
	Path    string
	Entries map[string][]LoginModule
}

// LoginConfigFromKafkaOpts returns the file a JVM started with opts (the
// value of KAFKA_OPTS, split on white space as the shell splits Kafka's
// unquoted $KAFKA_OPTS) would read as its JAAS configuration: the last
// -Djava.security.auth.login.config=, with the "==" form's extra '=' and a
// file: URL's scheme taken off. "" when none is given.
func LoginConfigFromKafkaOpts(opts string) string {
	path := ""
	for _, f := range strings.Fields(opts) {
		if v, ok := strings.CutPrefix(f, "-D"+LoginConfigProperty+"="); ok {
			path = v
		}
	}
	path = strings.TrimPrefix(path, "=")
	if rest, ok := strings.CutPrefix(path, "file://"); ok {
		path = rest
	} else if rest, ok := strings.CutPrefix(path, "file:"); ok {
		path = rest
	}
	return path
}

// LoadJAASFile reads and parses a JAAS login configuration file.
func LoadJAASFile(path string) (*JAASFile, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", LoginConfigProperty, path, err)
	}
	entries, err := ParseJAASFile(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", LoginConfigProperty, path, err)
	}
	return &JAASFile{Path: path, Entries: entries}, nil
}

// ParseJAASFile parses the syntax of the JDK's JAAS ConfigFile:
//
//	<name> { <loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*; ... };
//
// with the tokens and comments of a sasl.jaas.config value. A name given
// twice is refused, as the JDK refuses it.
func ParseJAASFile(text string) (map[string][]LoginModule, error) {
	t := &jaasTokenizer{src: text}
	entries := map[string][]LoginModule{}
	for t.next() != tokenEOF {
		if !t.hasSval {
			return nil, fmt.Errorf("JAAS configuration: expected an entry name, found %s", t.describe())
		}
		name := t.sval
		if _, dup := entries[name]; dup {
			return nil, fmt.Errorf("JAAS configuration: can not specify multiple entries for %s", name)
		}
		if t.next() != '{' {
			return nil, fmt.Errorf("JAAS configuration: expected [{] after %s, found %s", name, t.describe())
		}
		modules := []LoginModule{}
		for t.next() != '}' {
			if t.ttype == tokenEOF {
				return nil, fmt.Errorf("JAAS configuration: entry %s is not closed by }", name)
			}
			if !t.hasSval {
				return nil, fmt.Errorf("JAAS configuration: entry %s: expected a login module class, found %s", name, t.describe())
			}
			m, err := parseLoginModule(t)
			if err != nil {
				return nil, fmt.Errorf("JAAS configuration: entry %s: %w", name, err)
			}
			modules = append(modules, m)
		}
		if t.next() != ';' {
			return nil, fmt.Errorf("JAAS configuration: expected [;] after the } of %s, found %s", name, t.describe())
		}
		entries[name] = modules
	}
	return entries, nil
}

func (t *jaasTokenizer) describe() string {
	switch {
	case t.ttype == tokenEOF:
		return "end of file"
	case t.hasSval:
		return "[" + t.sval + "]"
	case t.ttype == tokenNumber:
		return "a number"
	}
	return "[" + string(rune(t.ttype)) + "]"
}

// ServerEntry returns the entry a broker's listener reads, as Kafka's
// JaasContext.loadServerContext does: <listener>.KafkaServer (the listener
// name in lower case) if the file has it, else KafkaServer; name is the
// entry's name, "" with ok false when the file has neither.
func (f *JAASFile) ServerEntry(listener string) (name string, modules []LoginModule, ok bool) {
	for _, name := range []string{strings.ToLower(listener) + "." + ServerContext, ServerContext} {
		if modules, ok := f.Entries[name]; ok {
			return name, modules, true
		}
	}
	return "", nil, false
}

// mechanismModules are the login module classes that carry a mechanism's
// server options in a JAAS file entry: Kafka's PLAIN callback handler
// reads the user_<name> options of the entry's PlainLoginModule, and the
// Kerberos login those of its Krb5LoginModule.
var mechanismModules = map[string][]string{
	Plain:       {PlainLoginModule},
	GSSAPI:      {Krb5LoginModule},
	OAuthBearer: {OAuthBearerLoginModule},
	ScramSHA256: {ScramLoginModule},
	ScramSHA512: {ScramLoginModule},
}

// ScramLoginModule is Kafka's SCRAM login module class.
const ScramLoginModule = "org.apache.kafka.common.security.scram.ScramLoginModule"

// ServerModule returns the login module of the listener's entry that
// serves mechanism, and the entry's name.
func (f *JAASFile) ServerModule(listener, mechanism string) (LoginModule, string, bool) {
	name, modules, ok := f.ServerEntry(listener)
	if !ok {
		return LoginModule{}, "", false
	}
	for _, m := range modules {
		if slices.Contains(mechanismModules[mechanism], m.Class) {
			return m, name, true
		}
	}
	return LoginModule{}, name, false
}

// String renders m as a sasl.jaas.config value that ParseJAAS reads back
// as m: every option quoted, in name order.
func (m LoginModule) String() string {
	var b strings.Builder
	b.WriteString(m.Class)
	b.WriteByte(' ')
	b.WriteString(strings.ToLower(m.Flag))
	keys := make([]string, 0, len(m.Options))
	for k := range m.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	quote := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=\"%s\"", k, quote.Replace(m.Options[k]))
	}
	b.WriteByte(';')
	return b.String()
}

// withJAASFile gives a listener's mechanisms the options of a JAAS file:
// a <mechanism>.sasl.jaas.config that is not set is the login module of
// the listener's file entry that serves the mechanism, as Kafka falls
// back to java.security.auth.login.config.
type withJAASFile struct {
	Settings
	file *JAASFile
}

// WithJAASFile returns s with file as the fallback of every
// <mechanism>.sasl.jaas.config; a nil file returns s.
func WithJAASFile(s Settings, file *JAASFile) Settings {
	if file == nil {
		return s
	}
	return withJAASFile{Settings: s, file: file}
}

func (w withJAASFile) ListenerValue(listener, key string) (string, bool) {
	v, ok := w.Settings.ListenerValue(listener, key)
	mechanism, isJAAS := strings.CutSuffix(key, ".sasl.jaas.config")
	if ok || !isJAAS {
		return v, ok
	}
	if m, _, found := w.file.ServerModule(listener, strings.ToUpper(mechanism)); found {
		return m.String(), true
	}
	return "", false
}

// jaasFileOf returns the JAAS file s falls back to, if any.
func jaasFileOf(s Settings) *JAASFile {
	if w, ok := s.(withJAASFile); ok {
		return w.file
	}
	return nil
}

// missingJAAS is the error for a mechanism that needs a login module and
// has neither a <mechanism>.sasl.jaas.config nor one in the JAAS file:
// Kafka's message when the file has no entry for the listener, else what
// the entry or the configuration lacks.
func missingJAAS(listener, mechanism string, s Settings, needs string) error {
	key := "listener.name." + strings.ToLower(listener) + "." + strings.ToLower(mechanism) + ".sasl.jaas.config"
	file := jaasFileOf(s)
	if file == nil {
		return fmt.Errorf("listener %s: %s needs %s with %s, or a %s entry with it in the file that -D%s= in KAFKA_OPTS names",
			listener, mechanism, key, needs, ServerContext, LoginConfigProperty)
	}
	if _, entry, _ := file.ServerModule(listener, mechanism); entry != "" {
		return fmt.Errorf("listener %s: %s: the %s entry of the JAAS file %s lacks %s; set %s or add it",
			listener, mechanism, entry, file.Path, needs, key)
	}
	return fmt.Errorf("listener %s: %s: Could not find a '%s' or '%s.%s' entry in the JAAS configuration. System property '%s' is %s",
		listener, mechanism, ServerContext, strings.ToLower(listener), ServerContext, LoginConfigProperty, file.Path)
}
