package node

import (
	"fmt"
	"strings"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/console"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
)

// consoleKeystoreKeys are the ssl.* keys karst.console.ssl.* takes, for
// the console's own HTTPS certificate: a key store in any of the forms an
// SSL listener reads, and nothing about client certificates, which a
// browser login does not use.
var consoleKeystoreKeys = []string{"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
	"ssl.keystore.key", "ssl.keystore.certificate.chain"}

// consoleServerTLS sets opts.ServerTLS from karst.console.ssl.*, when a
// key store is named there.
func consoleServerTLS(settings *config.Broker, opts *console.Options) error {
	if settings.String("karst.console.ssl.keystore.location") == "" && settings.String("karst.console.ssl.keystore.key") == "" {
		return nil
	}
	s := tlsconfig.SettingsFrom(func(key string) string {
		for _, k := range consoleKeystoreKeys {
			if k == key {
				return settings.String("karst.console." + key)
			}
		}
		return ""
	})
	cfg, err := tlsconfig.Build(s)
	if err != nil {
		// tlsconfig names Kafka's keys; the console's carry a prefix.
		return fmt.Errorf("karst.console.ssl.*: %s", strings.ReplaceAll(err.Error(), "ssl.", "karst.console.ssl."))
	}
	opts.ServerTLS = cfg
	return nil
}
