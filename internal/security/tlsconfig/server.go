package tlsconfig

import (
	"crypto/tls"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Build makes the server-side tls.Config that Settings describe.
func Build(s Settings) (*tls.Config, error) {
	cert, err := loadKeystore(s)
	if err != nil {
		return nil, err
	}
	roots, err := loadTruststore(s)
	if err != nil {
		return nil, err
	}
	lowest, highest, err := versionRange(s)
	if err != nil {
		return nil, err
	}
	suites, onlyTLS13, err := cipherSuites(s.CipherSuites)
	if err != nil {
		return nil, err
	}
	if onlyTLS13 {
		if highest < tls.VersionTLS13 {
			return nil, fmt.Errorf("ssl.cipher.suites names only TLS 1.3 suites but TLSv1.3 is not enabled")
		}
		lowest = tls.VersionTLS13
	}
	auth, err := clientAuth(s.ClientAuth)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    roots,
		ClientAuth:   auth,
		MinVersion:   lowest,
		MaxVersion:   highest,
		CipherSuites: suites,
	}, nil
}

// Listener is an SSL listener's TLS configuration, which Reload replaces
// while connections are accepted.
type Listener struct {
	current atomic.Pointer[tls.Config]

	mu       sync.Mutex
	settings Settings
	files    []fileStamp
}

// fileStamp identifies the version of a key or trust store file that was
// loaded, so that an update naming the same file reloads it only when it
// was rewritten (as Kafka compares the file's modification time).
type fileStamp struct {
	path    string
	size    int64
	modTime time.Time
}

// NewListener loads s.
func NewListener(s Settings) (*Listener, error) {
	l := &Listener{}
	if _, err := l.Reload(s); err != nil {
		return nil, err
	}
	return l, nil
}

// Config is what to give tls.Server: each handshake takes the
// configuration current when it starts.
func (l *Listener) Config() *tls.Config {
	return &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return l.current.Load(), nil
	}}
}

// Current is the configuration new handshakes use.
func (l *Listener) Current() *tls.Config { return l.current.Load() }

// Reload loads s when it differs from the settings in force or a store
// file changed since it was loaded, and reports whether it did. On error
// the configuration in force stays.
func (l *Listener) Reload(s Settings) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	files := stamps(s)
	if l.current.Load() != nil && equalSettings(s, l.settings) && slices.Equal(files, l.files) {
		return false, nil
	}
	cfg, err := Build(s)
	if err != nil {
		return false, err
	}
	l.current.Store(cfg)
	l.settings, l.files = s, files
	return true, nil
}

func stamps(s Settings) []fileStamp {
	var out []fileStamp
	for _, path := range []string{s.KeystoreLocation, s.TruststoreLocation} {
		if path == "" {
			continue
		}
		st := fileStamp{path: path}
		if fi, err := os.Stat(path); err == nil {
			st.size, st.modTime = fi.Size(), fi.ModTime()
		}
		out = append(out, st)
	}
	return out
}

func equalSettings(a, b Settings) bool { return reflect.DeepEqual(a, b) }
