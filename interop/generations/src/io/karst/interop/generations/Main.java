package io.karst.interop.generations;

import static io.karst.interop.generations.Checks.require;

import java.io.InputStream;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;

/**
 * One client generation against one broker: java -cp 'target/classes:target/lib/VERSION/*'
 * io.karst.interop.generations.Main BOOTSTRAP VERSION RUN_ID. Compiled once against
 * kafka-clients 2.8.2, using only API that every version in ../versions still has, and run with
 * each version's jars. The produce and group checks use topics that DataTopics made with the
 * newest client (the group's already holding TestRecords), so that each of producer, consumer
 * and AdminClient is judged on its own; the admin checks create, describe and delete a topic of
 * their own. Prints a PASS/FAIL line per check and "generation VERSION: N passed, M failed".
 */
public final class Main {
    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: Main BOOTSTRAP EXPECTED_CLIENT_VERSION RUN_ID");
            System.exit(2);
        }
        String bootstrap = args[0];
        String version = args[1];
        String runId = args[2];
        Checks checks = new Checks();
        checks.check("client_version", () -> {
            String loaded = clientVersion();
            require(loaded.equals(version), "classpath has kafka-clients " + loaded);
        });

        String suffix = version.replace('.', '_') + "-" + UUID.randomUUID().toString().substring(0, 8);
        String group = "generations-group-" + suffix;
        Clients clients = new Clients(bootstrap);
        checks.check("produce", () -> TestRecords.produce(clients, DataTopics.produceTopic(runId, version)));
        GroupRoundTrip roundTrip = new GroupRoundTrip(clients, DataTopics.groupTopic(runId, version), group);
        boolean consumed = checks.check("group_consume_commit", roundTrip::consumeAndCommit);
        if (consumed) {
            checks.check("group_resume_from_commits", roundTrip::resumeFromCommits);
        } else {
            checks.notRun("group_resume_from_commits", "no commits");
        }

        Admin admin = clients.admin();
        try {
            TopicAdmin topics = new TopicAdmin(admin, "generations-admin-" + suffix);
            checks.check("admin_describe_cluster", () -> topics.describeCluster(bootstrap));
            if (consumed) {
                checks.check("admin_list_consumer_groups", () -> topics.listConsumerGroup(group));
                checks.check("admin_describe_consumer_group", () -> topics.describeConsumerGroup(group));
                checks.check("admin_list_group_offsets", () -> topics.listGroupOffsets(group, roundTrip.commits()));
            } else {
                checks.notRun("admin_list_consumer_groups", "no group");
                checks.notRun("admin_describe_consumer_group", "no group");
                checks.notRun("admin_list_group_offsets", "no group");
            }
            if (checks.check("admin_create_topic", topics::createTopic)) {
                checks.check("admin_describe_topic", topics::describeTopic);
                checks.check("admin_describe_configs", topics::describeTopicConfigs);
                checks.check("admin_delete_topic", topics::deleteTopic);
            } else {
                checks.notRun("admin_describe_topic", "no topic");
                checks.notRun("admin_describe_configs", "no topic");
                checks.notRun("admin_delete_topic", "no topic");
            }
        } finally {
            admin.close(Clients.CLOSE_TIMEOUT);
        }
        System.out.println("generation " + version + ": " + checks.passed() + " passed, " + checks.failed() + " failed");
        System.exit(checks.failed() == 0 ? 0 : 1);
    }

    /** The version kafka-clients reports; read from its jar, as AppInfoParser moved in 4.x. */
    private static String clientVersion() throws Exception {
        try (InputStream in = Admin.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }
}
