/** A Boot application whose Redis is down at start-up or goes down while it runs. */
@NullMarked
package dev.locksmith.spring.outage;

import org.jspecify.annotations.NullMarked;
