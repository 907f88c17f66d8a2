/**
 * The chaos suite: every provider driven from separate JVMs against real servers while faults are
 * injected (SIGSTOP, SIGKILL, server restarts, cancelled waiters, crowds of waiters), with the
 * recorded histories checked against a mutex model and the figures written to a report.
 */
@NullMarked
package dev.locksmith.chaos;

import org.jspecify.annotations.NullMarked;
