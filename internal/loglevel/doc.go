// Package loglevel keeps Karst's named loggers and their levels, which an
// operator changes while the broker runs, as Kafka's BROKER_LOGGER configs
// change log4j levels (kafka-configs --entity-type broker-loggers).
//
// Loggers are named as log4j names them: "root", and dotted names below it
// ("karst", "karst.server", ...), one per package that logs. A logger
// without a level of its own takes its nearest named ancestor's, ending at
// root, which always has one. Kafka's level names map onto slog levels:
// TRACE (slog.LevelDebug-4), DEBUG, INFO, WARN, ERROR and FATAL
// (slog.LevelError+4, above anything Karst logs). A change takes effect at
// once for every logger derived from the named one, including those
// already handed out, because each logger's handler reads its level from a
// slog.LevelVar the Levels updates.
package loglevel
