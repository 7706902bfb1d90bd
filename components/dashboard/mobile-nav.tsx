"use client";

// The dashboard's navigation on phones: one Menu button in the header opens a sheet with the same links, the
// account and Sign out (rows of links took 170 px of an 844 px screen). Following a link closes it.
import * as React from "react";
import { MenuIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetTitle, SheetTrigger } from "@/components/ui/sheet";
import { NavLinks } from "./nav-links";

export function MobileNav({ footer }: { footer: React.ReactNode }) {
  const [isOpen, setIsOpen] = React.useState(false);
  return (
    <Sheet open={isOpen} onOpenChange={setIsOpen}>
      <SheetTrigger asChild>
        <Button variant="outline" size="sm">
          <MenuIcon aria-hidden /> Menu
        </Button>
      </SheetTrigger>
      {/* Its links are the whole content: no description to point to. */}
      <SheetContent side="left" aria-describedby={undefined} className="gap-0">
        <div className="flex h-14 items-center px-5">
          <SheetTitle className="text-sm">Menu</SheetTitle>
        </div>
        <nav aria-label="Dashboard" className="flex-1 px-3 py-2">
          <NavLinks onNavigate={() => setIsOpen(false)} />
        </nav>
        <div className="grid gap-3 border-t p-3">{footer}</div>
      </SheetContent>
    </Sheet>
  );
}
