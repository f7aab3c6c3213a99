package io.karst.interop;

import static io.karst.interop.Main.require;

import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Needs a broker with auto.create.topics.enable=false. The topic metadata answer for a missing
 * topic is UNKNOWN_TOPIC_OR_PARTITION (seen through AdminClient); a producer cannot send to it
 * (the Java client keeps asking for metadata until max.block.ms and then times out), and the
 * attempt must not create the topic.
 */
final class UnknownTopicSuite {
    private final String bootstrap;
    private final Main.Checks checks;
    private final String topic = "interop-java-missing-" + UUID.randomUUID().toString().substring(0, 8);

    UnknownTopicSuite(String bootstrap, Main.Checks checks) {
        this.bootstrap = bootstrap;
        this.checks = checks;
    }

    void run() {
        checks.check("unknown_topic_describe_fails", this::describeFails);
        checks.check("unknown_topic_produce_fails", this::produceFails);
        checks.check("unknown_topic_not_auto_created", this::describeFails);
    }

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private void describeFails() throws Exception {
        try (Admin admin = Admin.create(common())) {
            try {
                admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
                throw new AssertionError("describeTopics of a missing topic succeeded");
            } catch (ExecutionException e) {
                require(e.getCause() instanceof UnknownTopicOrPartitionException, "want UnknownTopicOrPartitionException, got " + e.getCause());
            }
        }
    }

    private void produceFails() throws Exception {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "3000");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            try {
                producer.send(new ProducerRecord<>(topic, "v".getBytes())).get(30, TimeUnit.SECONDS);
                throw new AssertionError("send to a missing topic succeeded");
            } catch (ExecutionException e) {
                require(e.getCause() instanceof TimeoutException || e.getCause() instanceof UnknownTopicOrPartitionException,
                        "want metadata timeout or UnknownTopicOrPartitionException, got " + e.getCause());
            }
        }
    }
}
