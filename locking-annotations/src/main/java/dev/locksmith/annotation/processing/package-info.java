/**
 * The annotation processor that lists every {@code @DistributedLock} method in {@code
 * META-INF/locksmith/locked-methods}, so that an integration can check at start-up that each one is
 * intercepted. It needs nothing but the JDK.
 */
package dev.locksmith.annotation.processing;
