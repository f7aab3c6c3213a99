package io.karst.interop;

import static io.karst.interop.Main.require;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Group membership under churn with the given group.protocol: members are {@link GroupMember} JVMs
 * over a 6-partition topic. Three join; one leaves (close); with classic one crashes (SIGKILL, no
 * LeaveGroup: the 6 s session timeout takes it out) — with consumer (KIP-848) the crash is left out,
 * since the broker's group.consumer.session.timeout.ms (45 s, not settable from the client) would
 * cost 45 s; the departed come back; finally all leave, records are produced to the empty group and
 * a restarted member reads exactly those. Records are produced before and after each step.
 *
 * Once the group is stable (several consecutive samples) every partition has exactly one owner, by
 * the members' own assignments and by DescribeConsumerGroups; no record is skipped; no record is
 * consumed twice except what the crashed member read and had not committed yet; the committed
 * offsets cover everything produced.
 */
final class GroupChurnSuite {
    private static final int PARTITIONS = 6;
    private static final int PER_ROUND = 60;
    private static final long DEADLINE_S = 120;
    private final String bootstrap;
    private final Main.Checks checks;
    private final String protocol;
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final String topic;
    private final String group;
    private final Map<String, List<String>> consumedBy = new ConcurrentHashMap<>();
    private final List<String> produced = new ArrayList<>();
    private final List<Member> started = new ArrayList<>();
    private long deadline;

    GroupChurnSuite(String bootstrap, Main.Checks checks, String protocol) {
        this.bootstrap = bootstrap;
        this.checks = checks;
        this.protocol = protocol;
        this.topic = "interop-java-churn-" + protocol + "-" + suffix;
        this.group = "interop-java-churn-" + protocol + "-" + suffix;
    }

    void run() {
        boolean crash = protocol.equals("classic");
        String name = "group_" + protocol + "_members_join_leave_" + (crash ? "crash_" : "") + "return";
        checks.check(name, () -> {
            try (Admin admin = Admin.create(common());
                 var producer = new KafkaProducer<String, String>(producerConfig())) {
                churn(admin, producer, crash);
            } catch (Throwable t) {
                for (Member m : started) System.out.println("     member " + m.name + " stderr: " + m.stderrTail());
                throw t;
            } finally {
                for (Member m : started) m.kill();
            }
        });
    }

    private void churn(Admin admin, KafkaProducer<String, String> producer, boolean crash) throws Exception {
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);

        produce(producer, "before");
        Member a = start("a"), b = start("b"), c = start("c");
        produce(producer, "joining");
        settle(admin, "3 members own 2 partitions each", a, b, c);
        for (Member m : List.of(a, b, c)) require(m.owns.size() == 2, "uneven assignment " + m.name + "=" + m.owns);
        consumedAll("3 members");

        a.leave();
        produce(producer, "after-leave");
        settle(admin, "the 2 remaining members own all partitions after one left", b, c);
        consumedAll("after a leave");

        Member survivor = c;
        List<Member> back = new ArrayList<>(List.of(start("a2")));
        if (crash) {
            b.crash();
            produce(producer, "after-crash");
            settle(admin, "the crashed member's partitions moved to the others after its session timed out", survivor, back.get(0));
            consumedAll("after a crash");
            back.add(start("b2"));
        } else {
            back.add(b);
        }
        produce(producer, "rejoining");
        List<Member> three = new ArrayList<>(back);
        three.add(survivor);
        settle(admin, "3 members own all partitions again after the departed came back", three.toArray(Member[]::new));
        consumedAll("after the return");

        for (Member m : three) m.leave();
        requireCommittedAll(admin, "after every member left");
        produce(producer, "while-empty");
        Member d = start("d");
        settle(admin, "a restarted member owns every partition", d);
        consumedAll("by the restarted member");
        d.leave();
        requireCommittedAll(admin, "at the end");
        requireEachOnce(crash ? "b" : null);
    }

    // ---- checks

    private void settle(Admin admin, String what, Member... members) throws InterruptedException {
        int[] streak = {0};
        eventually(what, () -> {
            boolean ok = ownedExactlyOnce(members) && describedStable(admin, members.length);
            streak[0] = ok ? streak[0] + 1 : 0;
            return streak[0] >= 5;
        });
    }

    private static boolean ownedExactlyOnce(Member[] members) {
        List<Integer> owned = new ArrayList<>();
        for (Member m : members) {
            Set<Integer> o = m.owns;
            if (o.isEmpty()) return false;
            owned.addAll(o);
        }
        owned.sort(null);
        return owned.equals(IntStream.range(0, PARTITIONS).boxed().toList());
    }

    /** The broker's view: the group is stable with n members, each partition assigned to one of them. */
    private boolean describedStable(Admin admin, int n) {
        ConsumerGroupDescription d;
        try {
            d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return false;
        }
        GroupType want = protocol.equals("classic") ? GroupType.CLASSIC : GroupType.CONSUMER;
        if (d.type() != want || d.groupState() != GroupState.STABLE || d.members().size() != n) return false;
        List<Integer> assigned = new ArrayList<>();
        for (MemberDescription m : d.members()) {
            for (TopicPartition tp : m.assignment().topicPartitions()) assigned.add(tp.partition());
        }
        assigned.sort(null);
        return assigned.equals(IntStream.range(0, PARTITIONS).boxed().toList());
    }

    private void consumedAll(String what) throws InterruptedException {
        eventually(produced.size() + " records consumed " + what,
                () -> produced.stream().allMatch(consumedBy::containsKey));
    }

    private void requireCommittedAll(Admin admin, String when) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        long sum = offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
        require(offsets.size() == PARTITIONS && sum == produced.size(),
                "committed " + when + ": " + offsets + " sum " + sum + ", produced " + produced.size());
    }

    /** Each produced record was consumed, once, or twice if the crashed member read it first. */
    private void requireEachOnce(String crashed) {
        Set<String> unexpected = new TreeSet<>(consumedBy.keySet());
        produced.forEach(unexpected::remove);
        require(unexpected.isEmpty(), "consumed records never produced: " + unexpected);
        for (String v : produced) {
            List<String> by = consumedBy.get(v);
            require(by != null, "record " + v + " skipped");
            boolean again = by.size() == 2 && by.get(0).equals(crashed) && !by.get(1).equals(crashed);
            require(by.size() == 1 || again, "record " + v + " consumed by " + by + ": a committed record was consumed again");
        }
    }

    private void eventually(String what, BooleanSupplier cond) throws InterruptedException {
        while (!cond.getAsBoolean()) {
            require(System.nanoTime() < deadline, "timed out waiting until " + what + "; members "
                    + started.stream().map(m -> m.name + "=" + m.owns).collect(Collectors.joining(" ")));
            Thread.sleep(50);
        }
    }

    // ---- producing

    private Properties common() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private Properties producerConfig() {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    private void produce(KafkaProducer<String, String> producer, String tag) throws Exception {
        List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
        for (int i = 0; i < PER_ROUND; i++) {
            String v = tag + "-" + i;
            acks.add(producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, v)));
            produced.add(v);
        }
        for (var f : acks) f.get(30, TimeUnit.SECONDS);
    }

    // ---- members

    private Member start(String name) throws Exception {
        Member m = new Member(name);
        started.add(m);
        return m;
    }

    /** A {@link GroupMember} JVM and what it reported. */
    private final class Member {
        final String name;
        final Process proc;
        final File stderr;
        final Writer stdin;
        final Thread reader;
        volatile Set<Integer> owns = Set.of();
        volatile boolean left;

        Member(String name) throws Exception {
            this.name = name;
            stderr = File.createTempFile("interop-java-member-" + name, ".log");
            stderr.deleteOnExit();
            String java = ProcessHandle.current().info().command().orElse("java");
            proc = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp", System.getProperty("java.class.path"), GroupMember.class.getName(),
                    bootstrap, group, topic, protocol)
                    .redirectError(stderr).start();
            stdin = new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8);
            reader = new Thread(this::read, "member-" + name);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (var in = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    String[] f = line.split(" ");
                    switch (f[0]) {
                        case "owns" -> owns = f.length == 1 ? Set.of()
                                : Arrays.stream(f[1].split(",")).map(Integer::valueOf).collect(Collectors.toUnmodifiableSet());
                        case "consumed" -> consumedBy.computeIfAbsent(f[3], k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(name);
                        case "left" -> { left = true; owns = Set.of(); }
                        default -> { }
                    }
                }
            } catch (Exception ignored) {
                // the process died; crash() and leave() say what was expected
            }
        }

        void leave() throws Exception {
            stdin.write("close\n");
            stdin.close();
            require(proc.waitFor(60, TimeUnit.SECONDS), "member " + name + " did not close within 60 s");
            reader.join(10_000);
            require(left, "member " + name + " exited (" + proc.exitValue() + ") without leaving");
        }

        void crash() throws Exception {
            proc.destroyForcibly(); // SIGKILL on Unix
            require(proc.waitFor(30, TimeUnit.SECONDS), "member " + name + " survived SIGKILL");
            reader.join(10_000);
            owns = Set.of();
        }

        void kill() {
            if (proc.isAlive()) proc.destroyForcibly();
        }

        String stderrTail() {
            try {
                String s = Files.readString(stderr.toPath());
                return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
            } catch (Exception e) {
                return e.toString();
            }
        }
    }
}
