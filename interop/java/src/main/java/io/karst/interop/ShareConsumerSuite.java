package io.karst.interop;

import static io.karst.interop.Main.require;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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
 * be delivered, and none accepted twice. Then, each on a topic of its own: released records come back,
 * rejected ones do not, a poison record stops at the delivery limit, implicit acknowledgement, the
 * records of a consumer killed (SIGKILL, a JVM of its own) come back, and those of a frozen one
 * (SIGSTOP) come back once their acquisition locks expire.
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
        checks.check("share_release_redelivered", this::releaseRedelivered);
        checks.check("share_reject_not_redelivered", this::rejectNotRedelivered);
        checks.check("share_poison_stops_at_delivery_limit", this::poisonStopsAtLimit);
        checks.check("share_implicit_acknowledgement", this::implicitAcknowledgement);
        checks.check("share_killed_consumer_redelivered", this::killedConsumerRedelivered);
        checks.check("share_frozen_consumer_redelivered_after_lock", this::frozenConsumerRedeliveredAfterLock);
    }

    private static final int SMALL = 10;
    private static final long CHECK_DEADLINE_NS = TimeUnit.SECONDS.toNanos(60);

    /** A one-partition topic and a share group reading it from the start, with extra group configs. */
    private String[] fresh(String what, Map<String, String> groupConfigs, int records) throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String topic = "interop-java-share-" + what + "-" + suffix;
        String group = topic;
        try (Admin admin = Admin.create(common())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            List<AlterConfigOp> ops = new ArrayList<>();
            ops.add(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET));
            for (var e : groupConfigs.entrySet()) ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all().get(30, TimeUnit.SECONDS);
        }
        produce(topic, 0, records);
        return new String[] {topic, group};
    }

    private void produce(String topic, int from, int count) {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (var producer = new KafkaProducer<String, String>(p)) {
            for (int i = from; i < from + count; i++) producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
            producer.flush();
        }
    }

    private KafkaShareConsumer<String, String> shareConsumer(String group, String name, String mode) {
        Properties p = common();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put("share.acknowledgement.mode", mode);
        return new KafkaShareConsumer<>(p);
    }

    private static int count(ConsumerRecord<String, String> r) {
        return r.deliveryCount().map(Short::intValue).orElseThrow(() -> new AssertionError(r.key() + " has no delivery count"));
    }

    private static void before(long deadline, String waitingFor) {
        require(System.nanoTime() < deadline, "deadline passed waiting for " + waitingFor);
    }

    /**
     * The first delivery of some records is released by one consumer, which then leaves; a second
     * consumer of the group must get them again with delivery count 2, and the rest with count 1.
     */
    private void releaseRedelivered() throws Exception {
        String[] tg = fresh("release", Map.of(), SMALL);
        Map<String, Integer> released = new HashMap<>();
        long deadline = System.nanoTime() + CHECK_DEADLINE_NS;
        try (var first = shareConsumer(tg[1], "share-release-a", "explicit")) {
            first.subscribe(List.of(tg[0]));
            while (released.isEmpty()) {
                before(deadline, "a first delivery");
                for (ConsumerRecord<String, String> r : first.poll(Duration.ofMillis(500))) {
                    require(count(r) == 1, r.key() + " first delivered with count " + count(r));
                    released.put(r.key(), count(r));
                    first.acknowledge(r, AcknowledgeType.RELEASE);
                }
            }
            first.commitSync(Duration.ofSeconds(30));
        }
        Map<String, Integer> accepted = new HashMap<>();
        try (var second = shareConsumer(tg[1], "share-release-b", "explicit")) {
            second.subscribe(List.of(tg[0]));
            while (accepted.size() < SMALL) {
                before(deadline, "the released records (" + accepted.size() + " of " + SMALL + " accepted)");
                for (ConsumerRecord<String, String> r : second.poll(Duration.ofMillis(500))) {
                    // A record the first consumer had fetched but not yet returned from poll is released
                    // by its close: count 1 or 2. The ones it released explicitly must say 2.
                    require(released.containsKey(r.key()) ? count(r) == 2 : count(r) >= 1,
                        r.key() + " delivered with count " + count(r) + " (released: " + released.containsKey(r.key()) + ")");
                    require(accepted.put(r.key(), count(r)) == null, r.key() + " delivered again after it was accepted");
                    second.acknowledge(r, AcknowledgeType.ACCEPT);
                }
                second.commitSync(Duration.ofSeconds(30));
            }
        }
        System.out.println("     share: " + released.size() + " released records redelivered to another consumer with count 2");
    }

    /**
     * Records rejected on their first delivery are archived: after the rest and a later record are
     * accepted (the later one proves the consumer fetched past them), none came back.
     */
    private void rejectNotRedelivered() throws Exception {
        String[] tg = fresh("reject", Map.of(), SMALL);
        Set<String> rejected = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        long deadline = System.nanoTime() + CHECK_DEADLINE_NS;
        try (var consumer = shareConsumer(tg[1], "share-reject", "explicit")) {
            consumer.subscribe(List.of(tg[0]));
            boolean markerSent = false;
            while (!seen.containsKey("k" + SMALL)) {
                before(deadline, "the records after the rejected ones");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    require(seen.merge(r.key(), 1, Integer::sum) == 1, r.key() + " delivered again (rejected: " + rejected.contains(r.key()) + ")");
                    if (rejected.size() < SMALL / 2) {
                        rejected.add(r.key());
                        consumer.acknowledge(r, AcknowledgeType.REJECT);
                    } else {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                    }
                }
                consumer.commitSync(Duration.ofSeconds(30));
                if (!markerSent && seen.size() == SMALL) {
                    produce(tg[0], SMALL, 1);
                    markerSent = true;
                }
            }
        }
        require(rejected.size() == SMALL / 2, "rejected " + rejected.size() + " records");
        System.out.println("     share: " + rejected.size() + " rejected records not delivered again");
    }

    /**
     * A record released on every delivery is archived at share.delivery.count.limit (the group
     * config, set to its minimum 2): a later record is then delivered without it.
     */
    private void poisonStopsAtLimit() throws Exception {
        int limit = 2;
        String[] tg = fresh("poison", Map.of("share.delivery.count.limit", Integer.toString(limit)), 1);
        List<Integer> poisonCounts = new ArrayList<>();
        long deadline = System.nanoTime() + CHECK_DEADLINE_NS;
        try (var consumer = shareConsumer(tg[1], "share-poison", "explicit")) {
            consumer.subscribe(List.of(tg[0]));
            boolean markerSent = false;
            boolean markerSeen = false;
            while (!markerSeen) {
                before(deadline, "the record after the poison one (poison delivered " + poisonCounts + ")");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.key().equals("k0")) {
                        poisonCounts.add(count(r));
                        consumer.acknowledge(r, AcknowledgeType.RELEASE);
                    } else {
                        require(count(r) == 1, r.key() + " delivered with count " + count(r));
                        markerSeen = true;
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                    }
                }
                consumer.commitSync(Duration.ofSeconds(30));
                if (!markerSent && poisonCounts.size() == limit) {
                    produce(tg[0], 1, 1);
                    markerSent = true;
                }
            }
        }
        require(poisonCounts.equals(List.of(1, 2)), "poison record delivered with counts " + poisonCounts + ", want [1, 2]");
        System.out.println("     share: poison record delivered " + poisonCounts.size() + " times, then archived at limit " + limit);
    }

    /**
     * share.acknowledgement.mode=implicit: the next poll (or commitSync) accepts what the last poll
     * returned, so a second consumer of the group gets only a later record.
     */
    private void implicitAcknowledgement() throws Exception {
        String[] tg = fresh("implicit", Map.of(), SMALL);
        Set<String> seen = new HashSet<>();
        long deadline = System.nanoTime() + CHECK_DEADLINE_NS;
        try (var first = shareConsumer(tg[1], "share-implicit-a", "implicit")) {
            first.subscribe(List.of(tg[0]));
            while (seen.size() < SMALL) {
                before(deadline, "the records (" + seen.size() + " of " + SMALL + ")");
                for (ConsumerRecord<String, String> r : first.poll(Duration.ofMillis(500))) {
                    require(count(r) == 1, r.key() + " delivered with count " + count(r));
                    require(seen.add(r.key()), r.key() + " delivered twice");
                }
            }
            first.commitSync(Duration.ofSeconds(30));
        }
        produce(tg[0], SMALL, 1);
        try (var second = shareConsumer(tg[1], "share-implicit-b", "implicit")) {
            second.subscribe(List.of(tg[0]));
            boolean markerSeen = false;
            while (!markerSeen) {
                before(deadline, "the record produced after the implicit acknowledgements");
                for (ConsumerRecord<String, String> r : second.poll(Duration.ofMillis(500))) {
                    require(r.key().equals("k" + SMALL), r.key() + " delivered again (count " + count(r) + ") after an implicit acknowledgement");
                    markerSeen = true;
                }
            }
            second.commitSync(Duration.ofSeconds(30));
        }
        System.out.println("     share: " + SMALL + " records implicitly accepted, not delivered again");
    }

    /** A ShareHolder process of group tg[1] on topic tg[0], once it holds records. */
    private record Holder(Process process, Set<String> held, long started) {}

    private Holder startHolder(String[] tg) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        long started = System.nanoTime();
        Process process = new ProcessBuilder(java, "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
            "-cp", System.getProperty("java.class.path"), ShareHolder.class.getName(), bootstrap, tg[1], tg[0])
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) lines.add(line);
                } catch (Exception ignored) {
                    // The process was killed: its output ends.
                }
            }, "share-holder-output");
            reader.setDaemon(true);
            reader.start();
            String line = lines.poll(60, TimeUnit.SECONDS);
            require(line != null && line.startsWith("ACQUIRED "), "the holder process acquired no records: " + line);
            return new Holder(process, new HashSet<>(List.of(line.substring("ACQUIRED ".length()).split(" "))), started);
        } catch (Exception | AssertionError e) {
            kill(process);
            throw e;
        }
    }

    /** SIGKILL: no leave heartbeat, no acknowledgement, no share session close. */
    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        require(process.waitFor(30, TimeUnit.SECONDS), "the holder process did not die");
    }

    /**
     * Another consumer of the group takes all SMALL records: those the holder held with delivery
     * count 2, the rest with count 1. Returns when it got the first of the held ones (nanoTime).
     */
    private long takeOver(String[] tg, Set<String> held, String name) throws Exception {
        Map<String, Integer> accepted = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        long firstRedelivery = 0;
        try (var consumer = shareConsumer(tg[1], name, "explicit")) {
            consumer.subscribe(List.of(tg[0]));
            while (accepted.size() < SMALL) {
                before(deadline, "the holder's records (" + accepted.size() + " of " + SMALL + " accepted, held " + held + ")");
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    int want = held.contains(r.key()) ? 2 : 1;
                    require(count(r) == want, r.key() + " delivered with count " + count(r) + ", want " + want + " (held: " + held.contains(r.key()) + ")");
                    require(accepted.put(r.key(), count(r)) == null, r.key() + " delivered again after it was accepted");
                    if (want == 2 && firstRedelivery == 0) firstRedelivery = System.nanoTime();
                    consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                }
                consumer.commitSync(Duration.ofSeconds(30));
            }
        }
        return firstRedelivery;
    }

    /**
     * A consumer in a JVM of its own (ShareHolder) acquires records and is killed with SIGKILL
     * before acknowledging them: another consumer gets them with delivery count 2. (The kernel
     * closes the killed process's connections, and the broker releases a closed connection's
     * share session at once, as Kafka's SharePartitionManager does on disconnect.)
     */
    private void killedConsumerRedelivered() throws Exception {
        String[] tg = fresh("killed", Map.of(), SMALL);
        Holder h = startHolder(tg);
        kill(h.process());
        long killed = System.nanoTime();
        long first = takeOver(tg, h.held(), "share-after-kill");
        System.out.printf("     share: %d records held by a SIGKILLed consumer redelivered with count 2, %.1f s after the kill%n",
            h.held().size(), (first - killed) / 1e9);
    }

    /**
     * The holder is frozen (SIGSTOP: its connections stay open, it sends nothing, as a consumer on
     * a host that vanished), then killed: its records come back to another consumer with delivery
     * count 2 only once their acquisition locks expire (share.record.lock.duration.ms, the group
     * config at its smallest allowed value, group.share.min.record.lock.duration.ms's default 15 s),
     * before the member's session times out (45 s).
     */
    private void frozenConsumerRedeliveredAfterLock() throws Exception {
        long lockMs = 15_000;
        String[] tg = fresh("frozen", Map.of("share.record.lock.duration.ms", Long.toString(lockMs)), SMALL);
        Holder h = startHolder(tg);
        long first;
        try {
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(h.process().pid())).inheritIO().start();
            require(stop.waitFor(30, TimeUnit.SECONDS) && stop.exitValue() == 0, "kill -STOP failed");
            first = takeOver(tg, h.held(), "share-after-freeze");
        } finally {
            kill(h.process());
        }
        double after = (first - h.started()) / 1e9;
        // The locks were taken after the holder started, so none can expire sooner than lockMs after it.
        require(after * 1000 >= lockMs, "the held records came back " + after + " s after the holder started, before their " + lockMs + " ms locks expired");
        System.out.printf("     share: %d records held by a frozen consumer redelivered with count 2 once their %d ms locks expired, %.1f s after it started%n",
            h.held().size(), lockMs, after);
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
