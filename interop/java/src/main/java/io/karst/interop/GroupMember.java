package io.karst.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of a consumer group in its own JVM, driven by {@link GroupChurnSuite} so that it can
 * be killed (SIGKILL: no LeaveGroup, no leave heartbeat). Arguments: BOOTSTRAP GROUP TOPIC PROTOCOL.
 *
 * It reports on stdout "owns P,Q" whenever its assignment changes, "consumed P OFFSET VALUE" for each
 * record (before committing it) and "left" after a clean close. It commits synchronously after
 * every poll and before giving partitions up; a failed commit is retried on the next poll. It closes
 * (leaving the group) when stdin says "close" or ends.
 */
public final class GroupMember {
    private static final Duration POLL = Duration.ofMillis(100);

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], group = args[1], topic = args[2], protocol = args[3];
        var closing = new java.util.concurrent.atomic.AtomicBoolean();
        Thread stdin = new Thread(() -> {
            try (var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) if (line.strip().equals("close")) break;
            } catch (Exception ignored) {
                // stdin gone: the suite wants us out
            }
            closing.set(true);
        });
        stdin.setDaemon(true);
        stdin.start();

        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (protocol.equals("classic")) {
            // The broker's default group.min.session.timeout.ms: a crashed member is out after 6 s.
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        }

        Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
        try (var c = new KafkaConsumer<String, String>(p)) {
            c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                    commit(c, pending);
                    parts.forEach(pending::remove);
                }
                @Override public void onPartitionsAssigned(Collection<TopicPartition> parts) {}
                @Override public void onPartitionsLost(Collection<TopicPartition> parts) {
                    parts.forEach(pending::remove);
                }
            });
            String owned = null;
            while (!closing.get()) {
                for (var r : c.poll(POLL)) {
                    say("consumed " + r.partition() + " " + r.offset() + " " + r.value());
                    pending.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                commit(c, pending);
                String now = c.assignment().stream().map(TopicPartition::partition).sorted()
                        .map(String::valueOf).collect(Collectors.joining(","));
                if (!now.equals(owned)) say("owns " + now);
                owned = now;
            }
            commit(c, pending);
        }
        say("left");
    }

    private static void commit(KafkaConsumer<String, String> c, Map<TopicPartition, OffsetAndMetadata> pending) {
        if (pending.isEmpty()) return;
        try {
            c.commitSync(Map.copyOf(pending), Duration.ofSeconds(10));
            pending.clear();
        } catch (Exception e) {
            System.err.println("commit failed (retried on the next poll): " + e);
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
