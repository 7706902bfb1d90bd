// Class-name helper shared by every primitive: clsx for conditions, tailwind-merge so later classes win.
import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs));
}
