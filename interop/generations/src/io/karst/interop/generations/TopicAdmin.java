package io.karst.interop.generations;

import static io.karst.interop.generations.Checks.require;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

/** The AdminClient checks: topic lifecycle, topic configs, cluster, and the group and its offsets. */
final class TopicAdmin {
    static final int PARTITIONS = 2;
    private static final String RETENTION_MS = "3600000";
    private static final long TIMEOUT_S = Clients.CALL_TIMEOUT.getSeconds();

    private final Admin admin;
    private final String topic;

    TopicAdmin(Admin admin, String topic) {
        this.admin = admin;
        this.topic = topic;
    }

    void createTopic() throws Exception {
        NewTopic newTopic = new NewTopic(topic, PARTITIONS, (short) 1).configs(Map.of("retention.ms", RETENTION_MS));
        admin.createTopics(List.of(newTopic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        require(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).contains(topic), "created topic not listed");
    }

    void describeTopic() throws Exception {
        TopicDescription description = describedTopics(admin.describeTopics(List.of(topic))).get(topic);
        require(description != null, "no description of " + topic);
        require(description.partitions().size() == PARTITIONS, "partitions: " + description.partitions());
        for (TopicPartitionInfo p : description.partitions()) {
            require(p.leader() != null && p.leader().id() >= 0, "partition " + p.partition() + " has no leader");
            require(p.replicas().size() == 1 && p.isr().size() == 1, "partition " + p.partition() + ": " + p);
        }
    }

    /**
     * DescribeTopicsResult.all() is the only way to the map in 2.8 and 3.0, and 4.0 removed it in
     * favour of allTopicNames() (3.1+); this binary links against both, so it asks by name.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, TopicDescription> describedTopics(DescribeTopicsResult result) throws Exception {
        Method all;
        try {
            all = DescribeTopicsResult.class.getMethod("allTopicNames");
        } catch (NoSuchMethodException before31) {
            all = DescribeTopicsResult.class.getMethod("all");
        }
        return ((KafkaFuture<Map<String, TopicDescription>>) all.invoke(result)).get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    void describeTopicConfigs() throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(resource);
        require(config != null, "no config for " + topic);
        ConfigEntry retention = config.get("retention.ms");
        require(retention != null && RETENTION_MS.equals(retention.value()), "retention.ms: " + retention);
        require(retention.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, "retention.ms source: " + retention.source());
        ConfigEntry cleanup = config.get("cleanup.policy");
        require(cleanup != null && "delete".equals(cleanup.value()), "cleanup.policy: " + cleanup);
        require(cleanup.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, "cleanup.policy source: " + cleanup.source());
    }

    void describeCluster(String bootstrap) throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();
        Collection<Node> nodes = cluster.nodes().get(TIMEOUT_S, TimeUnit.SECONDS);
        Optional<Node> advertised = nodes.stream().filter(n -> (n.host() + ":" + n.port()).equals(bootstrap)).findFirst();
        require(advertised.isPresent(), "no node at " + bootstrap + ": " + nodes);
        String clusterId = cluster.clusterId().get(TIMEOUT_S, TimeUnit.SECONDS);
        require(clusterId != null && !clusterId.isEmpty(), "cluster id: " + clusterId);
        Node controller = cluster.controller().get(TIMEOUT_S, TimeUnit.SECONDS);
        require(controller != null && nodes.contains(controller), "controller " + controller + " not among " + nodes);
    }

    void listConsumerGroup(String group) throws Exception {
        Collection<ConsumerGroupListing> groups = admin.listConsumerGroups().all().get(TIMEOUT_S, TimeUnit.SECONDS);
        ConsumerGroupListing listing = groups.stream().filter(g -> g.groupId().equals(group)).findFirst().orElse(null);
        require(listing != null, group + " not listed among " + groups);
        require(!listing.isSimpleConsumerGroup(), group + " listed as a simple group");
        // Both members have left, so the group is Empty; clients before ListGroups v4 get no state.
        require(listing.state().map(s -> s.toString().equals("Empty")).orElse(true), group + " state " + listing.state());
    }

    void describeConsumerGroup(String group) throws Exception {
        ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(group);
        require(description != null && description.groupId().equals(group), "described " + description);
        require(!description.isSimpleConsumerGroup(), group + " described as a simple group");
        require(description.members().isEmpty(), "members after both left: " + description.members());
        require(description.state().toString().equals("Empty"), group + " state " + description.state());
        require(description.coordinator() != null && description.coordinator().id() >= 0, "coordinator " + description.coordinator());
    }

    void listGroupOffsets(String group, Map<TopicPartition, OffsetAndMetadata> committed) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> listed =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(TIMEOUT_S, TimeUnit.SECONDS);
        require(committed.equals(listed), "listed offsets " + listed + ", committed " + committed);
    }

    void deleteTopic() throws Exception {
        admin.deleteTopics(List.of(topic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + Clients.CALL_TIMEOUT.toNanos();
        while (admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS).contains(topic)) {
            require(System.nanoTime() < deadline, topic + " still listed " + TIMEOUT_S + " s after its deletion");
            Thread.sleep(100);
        }
    }
}
