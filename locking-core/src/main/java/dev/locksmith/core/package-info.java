/**
 * Locksmith's engine and API: {@link dev.locksmith.core.Locksmith} runs annotated calls and
 * programmatic blocks under leases; {@link dev.locksmith.core.Locks#current()} shows the current
 * lease inside a locked method.
 */
@NullMarked
package dev.locksmith.core;

import org.jspecify.annotations.NullMarked;
