package node

import (
	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/quota"
)

// newClientQuotas returns the client quota managers over the quotas of the
// cluster metadata, with Kafka's window keys (quota.window.num,
// quota.window.size.seconds, and controller.quota.window.* for topic
// mutations); nil settings keep Kafka's defaults (11 windows of 1 s).
func newClientQuotas(settings *config.Broker, store *metadata.Store) *quota.Manager {
	cfg := quota.Config{Image: store.Image}
	if settings != nil {
		cfg.Window = quota.Window{Num: int(settings.Int("quota.window.num")), SizeMs: int64(settings.Int("quota.window.size.seconds")) * 1000}
		cfg.ControllerWindow = quota.Window{Num: int(settings.Int("controller.quota.window.num")),
			SizeMs: int64(settings.Int("controller.quota.window.size.seconds")) * 1000}
	}
	return quota.NewManager(cfg)
}
