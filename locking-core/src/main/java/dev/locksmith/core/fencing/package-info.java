/**
 * Fencing in users' hands: resources that refuse a writer whose fencing token is lower than one
 * they have already accepted, so that a holder whose lease ran out while it was paused cannot
 * overwrite the work of the next holder.
 */
@NullMarked
package dev.locksmith.core.fencing;

import org.jspecify.annotations.NullMarked;
