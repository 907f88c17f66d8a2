/** Micrometer meters for lock events. */
@NullMarked
package dev.locksmith.spring.metrics;

import org.jspecify.annotations.NullMarked;
