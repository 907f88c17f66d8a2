/** The {@code @DistributedLock} annotation and its busy policy. This module has no dependencies. */
package dev.locksmith.annotation;
