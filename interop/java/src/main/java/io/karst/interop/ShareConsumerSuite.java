package io.karst.interop;

import static io.karst.interop.Main.require;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Share groups (KIP-932; INTEROP_SHARE=1): three KafkaShareConsumers of one share group on a topic of
 * six partitions, explicit acknowledgement, each record accepted once. The group reads from the
 * start (share.auto.offset.reset=earliest, a GROUP config set with AdminClient). Every record must
 * be delivered, and none accepted twice.
 */
final class ShareConsumerSuite {
    private static final int RECORDS = 600;
    private static final int CONSUMERS = 3;
    private final String bootstrap;
    private final Main.Checks checks;

    ShareConsumerSuite(String bootstrap, Main.Checks checks) {
        this.bootstrap = bootstrap;
        this.checks = checks;
    }

    void run() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "interop-java-share-" + suffix;
        String group = "interop-java-share-" + suffix;
        if (!checks.check("share_setup", () -> setup(topic, group))) return;
        checks.check("share_three_consumers_accept_once", () -> consume(topic, group));
    }

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private void setup(String topic, String group) throws Exception {
        try (Admin admin = Admin.create(common())) {
            admin.createTopics(List.of(new NewTopic(topic, 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
            Map<ConfigResource, Collection<AlterConfigOp>> ops = Map.of(res,
                List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(ops).all().get(30, TimeUnit.SECONDS);
        }
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (var producer = new KafkaProducer<String, String>(p)) {
            for (int i = 0; i < RECORDS; i++) producer.send(new ProducerRecord<>(topic, i % 6, "k" + i, "v" + i));
            producer.flush();
        }
    }

    private void consume(String topic, String group) throws Exception {
        Map<String, AtomicInteger> accepted = new ConcurrentHashMap<>();
        Map<String, String> byConsumer = new ConcurrentHashMap<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CONSUMERS; c++) {
            String name = "share-consumer-" + c;
            Thread t = new Thread(() -> {
                Properties p = common();
                p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
                p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
                p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
                p.put("share.acknowledgement.mode", "explicit");
                try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p)) {
                    consumer.subscribe(List.of(topic));
                    while (accepted.size() < RECORDS && System.nanoTime() < deadline && failure.get() == null) {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                            accepted.computeIfAbsent(r.key(), k -> new AtomicInteger()).incrementAndGet();
                            byConsumer.put(r.key(), name);
                            consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        }
                        consumer.commitSync(Duration.ofSeconds(30));
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join(TimeUnit.SECONDS.toMillis(120));
        if (failure.get() != null) throw new Exception("a share consumer failed", failure.get());
        require(accepted.size() == RECORDS, "delivered " + accepted.size() + " of " + RECORDS + " records");
        for (var e : accepted.entrySet()) {
            require(e.getValue().get() == 1, e.getKey() + " was delivered and accepted " + e.getValue().get() + " times");
        }
        long consumers = byConsumer.values().stream().distinct().count();
        System.out.println("     share: " + RECORDS + " records accepted once each, by " + consumers + " consumers");
    }
}
