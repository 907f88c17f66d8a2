/**
 * Locksmith's engine and its API for applications: {@link dev.locksmith.core.Locksmith} runs
 * annotated calls and programmatic blocks under leases; {@link dev.locksmith.core.Locks#current()}
 * shows the current lease inside a locked method. The hooks for framework integrations are in
 * {@link dev.locksmith.core.internal}, the provider SPI in {@link dev.locksmith.core.spi}.
 */
@NullMarked
package dev.locksmith.core;

import org.jspecify.annotations.NullMarked;
