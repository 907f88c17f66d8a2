/** Virtual threads contending for locks through one engine, on every provider. */
@NullMarked
package dev.locksmith.virtualthreads;

import org.jspecify.annotations.NullMarked;
