package io.karst.interop.generations;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Client configurations with every wait bounded, spelled as config-name strings: the constants
 * for some of them came later than kafka-clients 2.8, and a name a client does not know is only
 * logged by it.
 */
final class Clients {
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final String bootstrap;

    Clients(String bootstrap) { this.bootstrap = bootstrap; }

    private Properties common() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "8000");
        p.put("default.api.timeout.ms", String.valueOf(CALL_TIMEOUT.toMillis()));
        p.put("reconnect.backoff.max.ms", "500");
        return p;
    }

    Admin admin() { return Admin.create(common()); }

    KafkaProducer<String, String> producer() {
        Properties p = common();
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("max.block.ms", "10000");
        p.put("delivery.timeout.ms", "15000");
        p.put("linger.ms", "5");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** A classic-protocol group member that commits by hand; "none" makes a missing commit an error. */
    KafkaConsumer<String, String> groupConsumer(String group, String autoOffsetReset) {
        Properties p = common();
        p.put("group.id", group);
        p.put("group.protocol", "classic");
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", autoOffsetReset);
        p.put("session.timeout.ms", "10000");
        p.put("heartbeat.interval.ms", "1000");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }
}
