package io.karst.interop;

import static io.karst.interop.Main.require;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Consumer groups (classic unless INTEROP_GROUPS=0; consumer with INTEROP_GROUPS_CONSUMER=1): a subscribed consumer using the given
 * group.protocol (classic: JoinGroup/SyncGroup/Heartbeat; consumer: ConsumerGroupHeartbeat) reads
 * every record of a 3-partition topic, commits, and AdminClient then lists the committed offsets.
 */
final class GroupConsumerSuite {
    private static final int RECORDS = 30;
    private final String bootstrap;
    private final Main.Checks checks;
    private final String protocol;

    GroupConsumerSuite(String bootstrap, Main.Checks checks, String protocol) {
        this.bootstrap = bootstrap;
        this.checks = checks;
        this.protocol = protocol;
    }

    void run() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "interop-java-group-" + protocol + "-" + suffix;
        String group = "interop-java-" + protocol + "-" + suffix;
        if (!checks.check("group_" + protocol + "_setup", () -> setup(topic))) return;
        checks.check("group_" + protocol + "_subscribe_consume_commit", () -> consume(topic, group));
        checks.check("group_" + protocol + "_committed_offsets", () -> committed(topic, group));
    }

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private void setup(String topic) throws Exception {
        try (Admin admin = Admin.create(common())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (var producer = new KafkaProducer<String, String>(p)) {
            for (int i = 0; i < RECORDS; i++) producer.send(new ProducerRecord<>(topic, i % 3, "k" + i, "v" + i));
            producer.flush();
        }
    }

    private void consume(String topic, String group) {
        Properties p = common();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Set<String> seen = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (var c = new KafkaConsumer<String, String>(p)) {
            c.subscribe(List.of(topic));
            while (seen.size() < RECORDS) {
                require(System.nanoTime() < deadline, "timed out with " + seen.size() + " of " + RECORDS + " records");
                for (var r : c.poll(Duration.ofMillis(500))) {
                    require(("v" + r.key().substring(1)).equals(r.value()), "record " + r.key() + "=" + r.value());
                    seen.add(r.key());
                }
            }
            require(c.assignment().size() == 3, "assignment " + c.assignment());
            c.commitSync(Duration.ofSeconds(30));
        }
    }

    private void committed(String topic, String group) throws Exception {
        try (Admin admin = Admin.create(common())) {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            for (int part = 0; part < 3; part++) {
                OffsetAndMetadata om = offsets.get(new TopicPartition(topic, part));
                require(om != null && om.offset() == RECORDS / 3, "partition " + part + " committed " + om);
            }
            require(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
                    .anyMatch(g -> g.groupId().equals(group)), "listConsumerGroups lacks " + group);
        }
    }

}
