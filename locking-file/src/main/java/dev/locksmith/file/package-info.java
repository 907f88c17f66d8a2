/**
 * The shared-directory provider ({@code file:///mnt/shared/locks}): one lock file per lock id,
 * created atomically with {@code O_CREAT|O_EXCL}, taken over safely after its lease expired, with
 * fencing tokens kept in a counter file next to it.
 */
@NullMarked
package dev.locksmith.file;

import org.jspecify.annotations.NullMarked;
