/**
 * The provider SPI: owner-scoped leases with TTLs and fencing tokens, and provider lookup by URL.
 */
@NullMarked
package dev.locksmith.core.spi;

import org.jspecify.annotations.NullMarked;
