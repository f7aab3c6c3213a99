package io.karst.interop.generations;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * java ... DataTopics create|delete BOOTSTRAP RUN_ID VERSION...: the topics that Main's produce
 * and group checks use, made (the group topic filled with TestRecords) and removed by run.sh with
 * the newest client before and after the versions run.
 */
public final class DataTopics {
    static String produceTopic(String runId, String version) { return "generations-produce-" + version + "-" + runId; }

    static String groupTopic(String runId, String version) { return "generations-group-" + version + "-" + runId; }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !(args[0].equals("create") || args[0].equals("delete"))) {
            System.err.println("usage: DataTopics create|delete BOOTSTRAP RUN_ID VERSION...");
            System.exit(2);
        }
        Clients clients = new Clients(args[1]);
        String runId = args[2];
        List<String> versions = Arrays.asList(args).subList(3, args.length);
        List<String> names = new ArrayList<>();
        for (String v : versions) {
            names.add(produceTopic(runId, v));
            names.add(groupTopic(runId, v));
        }
        long timeout = Clients.CALL_TIMEOUT.getSeconds();
        Admin admin = clients.admin();
        try {
            if (args[0].equals("delete")) {
                admin.deleteTopics(names).all().get(timeout, TimeUnit.SECONDS);
                return;
            }
            List<NewTopic> topics = new ArrayList<>();
            for (String name : names) topics.add(new NewTopic(name, TopicAdmin.PARTITIONS, (short) 1));
            admin.createTopics(topics).all().get(timeout, TimeUnit.SECONDS);
        } finally {
            admin.close(Clients.CLOSE_TIMEOUT);
        }
        for (String v : versions) TestRecords.produce(clients, groupTopic(runId, v));
    }
}
