// Package node assembles one running Karst broker from its parts: it binds
// the listeners, opens storage, builds the handler layer and serves, and it
// shuts all of that down in the reverse order. The binary and the public
// test package (karsttest) both start brokers through it.
package node
