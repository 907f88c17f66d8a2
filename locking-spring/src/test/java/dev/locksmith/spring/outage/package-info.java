/** Boot applications whose lock backend is down at start-up, goes down, or is unsafe for locks. */
@NullMarked
package dev.locksmith.spring.outage;

import org.jspecify.annotations.NullMarked;
