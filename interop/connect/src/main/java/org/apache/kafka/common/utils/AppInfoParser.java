package org.apache.kafka.common.utils;

/**
 * The class connect-file 4.3.1's connectors call for their version(). Kafka 4.4.0 moved it to
 * org.apache.kafka.common.utils.internals, and Maven Central has no connect-file 4.4.0, so this
 * suite's classpath carries the old name, answering with the new class.
 */
public final class AppInfoParser {
    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }

    public static String getCommitId() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
    }

    private AppInfoParser() {}
}
