package node

import (
	"strings"
	"testing"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/console"
	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
)

// TestConsoleServerTLSErrors: a console key store that cannot be read
// stops the start with the console's own key names; without one the
// console stays on HTTP.
func TestConsoleServerTLSErrors(t *testing.T) {
	ca := tlstest.NewCA(t, "console-https-ca")
	p12 := tlstest.WriteFile(t, t.TempDir(), "console.p12", ca.Server(t, "console").PKCS12(t, "right"))
	for _, tc := range []struct {
		name      string
		overrides []string
		want      string // "" : no error and no TLS
	}{
		{"none", nil, ""},
		{"wrong password", []string{"karst.console.ssl.keystore.type=PKCS12", "karst.console.ssl.keystore.location=" + p12, "karst.console.ssl.keystore.password=wrong"}, "karst.console.ssl.*: PKCS12 key store: pkcs12: decryption password incorrect"},
		{"missing file", []string{"karst.console.ssl.keystore.location=/nonexistent/console.pem"}, "karst.console.ssl.keystore.location: open /nonexistent/console.pem"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings, _, err := config.Load("", append([]string{"listeners=PLAINTEXT://127.0.0.1:0", "log.dirs=" + t.TempDir()}, tc.overrides...))
			if err != nil {
				t.Fatal(err)
			}
			var opts console.Options
			err = consoleServerTLS(settings, &opts)
			switch {
			case tc.want == "" && (err != nil || opts.ServerTLS != nil):
				t.Errorf("no key store: %v, TLS %v", err, opts.ServerTLS != nil)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
