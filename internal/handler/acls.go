package handler

import (
	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
)

// standardAuthorizer is the authorizer.class.name that turns Karst's
// authorizer on: Kafka's KRaft authorizer, whose ACLs live in
// __cluster_metadata.
const standardAuthorizer = config.StandardAuthorizer

// Kafka's messages for the ACL APIs on a broker without an authorizer.
const (
	noAuthorizerDescribe = "No Authorizer is configured on the broker"
	noAuthorizer         = "No Authorizer is configured."
)

// authorizerConfigured reports whether the ACL APIs are served: Kafka
// answers them SECURITY_DISABLED without an authorizer.
func (b *Broker) authorizerConfigured() bool {
	return b.opts.Settings != nil && b.opts.Settings.String("authorizer.class.name") == standardAuthorizer
}

// unknownACLElement reports whether a filter or creation carries an
// UNKNOWN (0) code, which Kafka's request classes refuse while parsing,
// so the broker closes the connection instead of answering.
func unknownACLElement(resourceType, patternType, operation, permissionType int8) bool {
	return resourceType == metadata.ResourceUnknown || patternType == metadata.PatternUnknown ||
		operation == metadata.OpUnknown || permissionType == metadata.PermissionUnknown
}

// closeConnection is the outcome of a request Kafka fails to parse.
func closeConnection() Outcome { return Outcome{NoResponse: true, CloseConnection: true} }
