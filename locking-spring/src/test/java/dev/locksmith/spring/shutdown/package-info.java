/** Graceful shutdown of a Boot application running a locked job, in a JVM of its own. */
@NullMarked
package dev.locksmith.spring.shutdown;

import org.jspecify.annotations.NullMarked;
