// Package authorizer decides whether a principal may perform an operation
// on a resource, by the rules of Kafka's StandardAuthorizer over the ACLs
// in the cluster metadata: super users may do anything; a matching DENY
// wins over any ALLOW; READ, WRITE, DELETE and ALTER imply DESCRIBE and
// ALTER_CONFIGS implies DESCRIBE_CONFIGS, on ALLOW ACLs only; a resource
// with no ACL at all is allowed only with allow.everyone.if.no.acl.found.
package authorizer
