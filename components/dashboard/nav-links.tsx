"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import {
  ActivityIcon,
  BarChart3Icon,
  BoxesIcon,
  CoinsIcon,
  KeyRoundIcon,
  LayoutDashboardIcon,
  ServerIcon,
  UserRoundIcon,
  WebhookIcon,
} from "lucide-react";
import { cn } from "@/components/ui/cn";

const items = [
  { href: "/overview", label: "Overview", icon: LayoutDashboardIcon },
  { href: "/services", label: "Services", icon: BoxesIcon },
  { href: "/jobs", label: "Jobs", icon: ActivityIcon },
  { href: "/nodes", label: "Nodes", icon: ServerIcon },
  { href: "/usage", label: "Usage", icon: BarChart3Icon },
  { href: "/webhooks", label: "Webhooks", icon: WebhookIcon },
  { href: "/keys", label: "API keys", icon: KeyRoundIcon },
  { href: "/credits", label: "Credits", icon: CoinsIcon },
  { href: "/profile", label: "Profile", icon: UserRoundIcon },
] as const;

/** The dashboard's links, the current page marked; `onNavigate` hears of a click (the phone menu closes). */
export function NavLinks({ onNavigate }: { onNavigate?: () => void }) {
  const pathname = usePathname();
  return (
    <ul className="flex flex-col gap-1">
      {items.map(({ href, label, icon: Icon }) => {
        const isActive = pathname === href || pathname.startsWith(`${href}/`);
        return (
          <li key={href}>
            <Link
              href={href}
              aria-current={isActive ? "page" : undefined}
              onClick={onNavigate}
              className={cn(
                "flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm whitespace-nowrap text-muted-foreground transition-colors outline-none hover:bg-sidebar-accent hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50",
                isActive && "bg-sidebar-accent font-medium text-foreground",
              )}
            >
              <Icon className="size-4" aria-hidden />
              {label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
