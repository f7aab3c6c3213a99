package io.karst.interop.streams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A Kafka Streams 4.4.0 word count against KARST_BOOTSTRAP: lines are split into words,
 * re-keyed by word (a repartition topic), counted in a persistent (RocksDB) KTable whose
 * changelog is a compacted topic, and the counts written to an output topic, with
 * processing.guarantee=exactly_once_v2. The application is then closed, its local state wiped,
 * more input written and the application started again: its store is restored from the
 * changelog, and the final counts must be exact. With INTEROP_STREAMS_RESTART_CMD (restart.sh sets
 * it), the broker is then restarted by that command while the application runs and more input
 * arrives, and the counts must again be exact. Prints "interop-streams: N passed, M failed".
 */
public final class WordCountSuite {
    private static final String[] VOCABULARY = {
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
        "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"};
    private static final Duration WAIT = Duration.ofSeconds(Long.parseLong(System.getenv().getOrDefault("INTEROP_STREAMS_WAIT_S", "90")));

    private static String bootstrap;
    private static int passed;
    private static int failed;

    public static void main(String[] args) throws Exception {
        bootstrap = System.getenv().getOrDefault("KARST_BOOTSTRAP", "127.0.0.1:9092");
        String run = Long.toString(System.currentTimeMillis(), 36);
        String input = "streams-wc-in-" + run;
        String output = "streams-wc-out-" + run;
        String appId = "streams-wc-" + run;
        Path stateDir = Files.createTempDirectory("interop-streams-");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(input, 3, (short) 1), new NewTopic(output, 3, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);

            Map<String, Long> expected = new TreeMap<>();
            produceLines(input, 1, 300, expected);
            Map<String, List<Long>> seen = new HashMap<>();
            AtomicLong restored = new AtomicLong();

            KafkaStreams first = start(appId, input, output, stateDir, restored);
            check("first input counted exactly (exactly_once_v2)", () -> awaitCounts(output, expected, seen));
            check("changelog topic is compacted, repartition topic is delete", () -> {
                String changelog = appId + "-counts-changelog";
                String repartition = appId + "-words-repartition";
                Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                if (!names.contains(changelog) || !names.contains(repartition)) {
                    return "internal topics " + names.stream().filter(n -> n.startsWith(appId)).toList()
                        + ", want " + changelog + " and " + repartition;
                }
                String c = cleanupPolicy(admin, changelog);
                String r = cleanupPolicy(admin, repartition);
                return "compact".equals(c) && "delete".equals(r) ? null
                    : changelog + " cleanup.policy=" + c + ", " + repartition + " cleanup.policy=" + r;
            });
            first.close(Duration.ofSeconds(30));
            // Wipe the local RocksDB store: the next instance must restore it from the changelog.
            first.cleanUp();

            produceLines(input, 2, 200, expected);
            KafkaStreams second = start(appId, input, output, stateDir, restored);
            check("counts exact after a restart with the local state wiped", () -> awaitCounts(output, expected, seen));
            check("the store was restored from its changelog", () ->
                restored.get() > 0 ? null : "no record restored into the counts store");
            check("each word's committed counts only grow (no aborted or repeated update read)", () -> {
                for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
                    List<Long> counts = e.getValue();
                    for (int i = 1; i < counts.size(); i++) {
                        if (counts.get(i) <= counts.get(i - 1)) {
                            return e.getKey() + ": counts read " + counts;
                        }
                    }
                }
                return null;
            });
            String restartCmd = System.getenv("INTEROP_STREAMS_RESTART_CMD");
            if (restartCmd != null && !restartCmd.isEmpty()) {
                restartMidInput(restartCmd, input, output, expected, seen);
            }
            second.close(Duration.ofSeconds(30));
            second.cleanUp();
        }
        System.out.println("interop-streams: " + passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    interface Check {
        String run() throws Exception; // null when it passes, else why not
    }

    private static void check(String name, Check c) {
        String why;
        try {
            why = c.run();
        } catch (Exception e) {
            why = e.toString();
        }
        if (why == null) {
            passed++;
            System.out.println("PASS " + name);
        } else {
            failed++;
            System.out.println("FAIL " + name + ": " + why);
        }
    }

    private static String cleanupPolicy(Admin admin, String topic) throws Exception {
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config cfg = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
        return cfg.get("cleanup.policy").value();
    }

    /**
     * The broker restarts while the application runs and input arrives: 300 more lines are
     * written one every 10 ms, and after the 100th the restart command (which stops the broker
     * and starts it again on the same directory and port) runs. The producer and the running
     * application ride over the outage; the counts must be exact at the end.
     */
    private static void restartMidInput(String restartCmd, String input, String output, Map<String, Long> expected,
                                        Map<String, List<Long>> seen) throws Exception {
        Map<String, Long> more = new TreeMap<>();
        AtomicLong sent = new AtomicLong();
        List<Exception> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread producing = new Thread(() -> {
            try {
                produceLines(input, 3, 300, more, sent, 10);
            } catch (Exception e) {
                errors.add(e);
            }
        });
        producing.start();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (sent.get() < 100 && producing.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        check("broker restarted mid-input", () -> {
            Process proc = new ProcessBuilder("sh", "-c", restartCmd).inheritIO().start();
            if (!proc.waitFor(120, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                return "the restart command did not end within 120 s";
            }
            return proc.exitValue() == 0 ? null : "the restart command exited " + proc.exitValue();
        });
        producing.join(WAIT.toMillis());
        check("input written across the restart", () -> !errors.isEmpty() ? errors.get(0).toString()
            : producing.isAlive() ? "still writing after " + WAIT.toSeconds() + " s" : null);
        more.forEach((w, n) -> expected.merge(w, n, Long::sum));
        check("counts exact after the broker restarted mid-input", () -> awaitCounts(output, expected, seen));
        check("committed counts only grow across the broker restart", () -> {
            for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
                List<Long> counts = e.getValue();
                for (int i = 1; i < counts.size(); i++) {
                    if (counts.get(i) <= counts.get(i - 1)) {
                        return e.getKey() + ": counts read " + counts;
                    }
                }
            }
            return null;
        });
    }

    /** Writes n lines of five words (seeded), adding their words to expected. */
    private static void produceLines(String topic, long seed, int n, Map<String, Long> expected) throws Exception {
        produceLines(topic, seed, n, expected, new AtomicLong(), 0);
    }

    /**
     * produceLines, counting the lines sent in sent and pausing pauseMs after each; a send the
     * producer gave up on fails the call.
     */
    private static void produceLines(String topic, long seed, int n, Map<String, Long> expected, AtomicLong sent,
                                     long pauseMs) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        Random rnd = new Random(seed);
        List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < n; i++) {
                StringBuilder line = new StringBuilder();
                for (int w = 0; w < 5; w++) {
                    String word = VOCABULARY[rnd.nextInt(VOCABULARY.length)];
                    expected.merge(word, 1L, Long::sum);
                    line.append(w == 0 ? "" : " ").append(word);
                }
                futures.add(producer.send(new ProducerRecord<>(topic, null, line.toString())));
                sent.incrementAndGet();
                if (pauseMs > 0) {
                    Thread.sleep(pauseMs);
                }
            }
            producer.flush();
            for (java.util.concurrent.Future<?> f : futures) {
                f.get();
            }
        }
    }

    private static KafkaStreams start(String appId, String input, String output, Path stateDir, AtomicLong restored) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
            .flatMap((k, line) -> {
                List<KeyValue<String, String>> words = new ArrayList<>();
                for (String w : line.split(" ")) {
                    words.add(KeyValue.pair(w, w));
                }
                return words;
            })
            .groupByKey(Grouped.<String, String>as("words").withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.setUncaughtExceptionHandler(e -> {
            System.out.println("stream thread error: " + e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {}

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {
                restored.addAndGet(n);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {}
        });
        streams.start();
        return streams;
    }

    /**
     * Reads output (read_committed) from the start until every word's latest count is its expected
     * count; seen collects every committed count read per word (across calls).
     */
    private static String awaitCounts(String output, Map<String, Long> expected, Map<String, List<Long>> seen) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        Map<String, Long> latest = new TreeMap<>();
        seen.clear();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(output).forEach(pi -> parts.add(new TopicPartition(output, pi.partition())));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(500))) {
                    latest.put(r.key(), r.value());
                    seen.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
                if (latest.equals(expected)) {
                    return null;
                }
                for (Map.Entry<String, Long> e : latest.entrySet()) {
                    Long want = expected.get(e.getKey());
                    if (want == null || e.getValue() > want) {
                        return "word " + e.getKey() + " counted " + e.getValue() + ", want " + want;
                    }
                }
            }
        }
        return "after " + WAIT.toSeconds() + " s the counts read are " + latest + ", want " + expected;
    }

    private WordCountSuite() {}
}
