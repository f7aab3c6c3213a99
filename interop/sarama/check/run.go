package check

import (
	"errors"
	"fmt"
	"log"
	"os"
	"runtime/debug"

	"github.com/IBM/sarama"
)

// Run is the command line of a version's binary:
//
//	check BOOTSTRAP VERSION RUN_ID   the checks of one version, ending "generation VERSION: N passed, M failed"
//	setup BOOTSTRAP RUN_ID VERSION...     create every version's produce and group topics, fill the group ones
//	teardown BOOTSTRAP RUN_ID VERSION...  delete them
//
// run.sh makes and removes the topics with the newest version, so that a version whose
// ClusterAdmin fails still shows how its producer and consumer fare.
func Run(args []string) int {
	if os.Getenv("SARAMA_LOG") == "1" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
	}
	if len(args) >= 4 && args[0] == "check" {
		return checkVersion(args[1], args[2], args[3])
	}
	if len(args) >= 4 && (args[0] == "setup" || args[0] == "teardown") {
		if err := dataTopics(args[0] == "setup", args[1], args[2], args[3:]); err != nil {
			fmt.Println(err)
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "usage: check BOOTSTRAP VERSION RUN_ID | setup|teardown BOOTSTRAP RUN_ID VERSION...")
	return 2
}

func produceTopic(runID, version string) string { return "sarama-produce-" + version + "-" + runID }
func groupTopic(runID, version string) string   { return "sarama-group-" + version + "-" + runID }

func checkVersion(bootstrap, version, runID string) int {
	var c checks
	c.run("client_version", func() error {
		if linked := saramaVersion(); linked != version {
			return fmt.Errorf("binary links sarama %s", linked)
		}
		fmt.Printf("sarama %s, config.Version %s (sarama.MaxVersion)\n", version, sarama.MaxVersion)
		return nil
	})
	c.run("produce", func() error { return produce(newConfig(), bootstrap, produceTopic(runID, version)) })
	group := "sarama-group-" + version + "-" + runID
	roundTrip := newGroupRoundTrip(bootstrap, groupTopic(runID, version), group)
	consumed := c.run("group_consume_commit", roundTrip.consumeAndCommit)
	if consumed {
		c.run("group_resume_from_commits", roundTrip.resumeFromCommits)
	} else {
		c.notRun("group_resume_from_commits", "no commits")
	}
	admin, err := sarama.NewClusterAdmin([]string{bootstrap}, newConfig())
	if err != nil {
		c.run("admin_connect", func() error { return err })
	} else {
		defer admin.Close()
		a := &topicAdmin{admin: admin, bootstrap: bootstrap, topic: "sarama-admin-" + version + "-" + runID}
		c.run("admin_describe_cluster", a.describeCluster)
		if consumed {
			c.run("admin_list_consumer_groups", func() error { return a.listConsumerGroup(group) })
			c.run("admin_describe_consumer_group", func() error { return a.describeConsumerGroup(group) })
			c.run("admin_list_group_offsets", func() error { return a.listGroupOffsets(group, roundTrip.topic, roundTrip.commits) })
		} else {
			for _, name := range []string{"admin_list_consumer_groups", "admin_describe_consumer_group", "admin_list_group_offsets"} {
				c.notRun(name, "no group")
			}
		}
		if c.run("admin_create_topic", a.createTopic) {
			c.run("admin_describe_topic", a.describeTopic)
			c.run("admin_describe_configs", a.describeConfigs)
			c.run("admin_delete_topic", a.deleteTopic)
		} else {
			for _, name := range []string{"admin_describe_topic", "admin_describe_configs", "admin_delete_topic"} {
				c.notRun(name, "no topic")
			}
		}
	}
	fmt.Printf("generation %s: %d passed, %d failed\n", version, c.passed, c.failed)
	if c.failed > 0 {
		return 1
	}
	return 0
}

// saramaVersion is the sarama module version linked into this binary.
func saramaVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/IBM/sarama" {
			if dep.Replace != nil {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "not linked"
}

func dataTopics(create bool, bootstrap, runID string, versions []string) error {
	admin, err := sarama.NewClusterAdmin([]string{bootstrap}, newConfig())
	if err != nil {
		return fmt.Errorf("new cluster admin: %w", err)
	}
	defer admin.Close()
	var names []string
	for _, v := range versions {
		names = append(names, produceTopic(runID, v), groupTopic(runID, v))
	}
	var failed error
	for _, name := range names {
		if create {
			err = admin.CreateTopic(name, &sarama.TopicDetail{NumPartitions: Partitions, ReplicationFactor: 1}, false)
		} else {
			err = admin.DeleteTopic(name)
		}
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("%s: %w", name, err))
		}
	}
	if failed != nil || !create {
		return failed
	}
	for _, v := range versions {
		if err := produce(newConfig(), bootstrap, groupTopic(runID, v)); err != nil {
			return fmt.Errorf("filling %s: %w", groupTopic(runID, v), err)
		}
	}
	return nil
}
